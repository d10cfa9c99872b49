import { execCredential, parseExecInfo } from '../../../../src/domain/login/kube/exec-credential';
import { ConfigurationError } from '../../../../src/domain/shared/errors';

const info = (apiVersion: string) =>
  JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { interactive: false } });

describe('KUBERNETES_EXEC_INFO', () => {
  it('names the version kubectl reads: v1 or v1beta1; unset or empty means v1beta1', () => {
    expect(parseExecInfo(info('client.authentication.k8s.io/v1'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
    });
    expect(parseExecInfo(info('client.authentication.k8s.io/v1beta1')).apiVersion).toBe(
      'client.authentication.k8s.io/v1beta1',
    );
    expect(parseExecInfo(undefined).apiVersion).toBe('client.authentication.k8s.io/v1beta1');
    expect(parseExecInfo(' ').apiVersion).toBe('client.authentication.k8s.io/v1beta1');
  });

  it.each([
    ['{', /is not JSON/],
    ['null', /is not a JSON object/],
    ['"x"', /is not a JSON object/],
    [JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1' }), /is not an ExecCredential/],
    [info('client.authentication.k8s.io/v1alpha1'), /asks for apiVersion "client.authentication.k8s.io\/v1alpha1"/],
    [JSON.stringify({ kind: 'ExecCredential' }), /asks for apiVersion "undefined"/],
  ])('refuses %s with a configuration error naming setup-kube', (raw, message) => {
    expect(() => parseExecInfo(raw)).toThrow(ConfigurationError);
    expect(() => parseExecInfo(raw)).toThrow(message);
    expect(() => parseExecInfo(raw)).toThrow(/skiff auth setup-kube/);
  });

  it('names the version asked for on one line, whatever characters it holds', () => {
    // Found by exec-credential.property.test.ts: U+2028 and C1 controls went into the message as they were.
    expect(() => parseExecInfo(info('v\u2028x\u009b[2J\u007f'))).toThrow(
      'KUBERNETES_EXEC_INFO asks for apiVersion "v\\u2028x\\u009b[2J\\u007f", not',
    );
  });
});

describe('the ExecCredential', () => {
  it('carries the token and expires 60 s before the token does, in whole seconds', () => {
    const credential = execCredential(
      { apiVersion: 'client.authentication.k8s.io/v1' },
      'tok',
      new Date('2030-01-01T12:00:00.750Z'),
    );
    expect(credential).toEqual({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: { interactive: false },
      status: { token: 'tok', expirationTimestamp: '2030-01-01T11:59:00Z' },
    });
  });
});
