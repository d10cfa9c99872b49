import fc from 'fast-check';
import { EXEC_API_VERSIONS, execCredential, parseExecInfo } from '../../../../src/domain/login/kube/exec-credential';
import { ConfigurationError } from '../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../support/property';

/**
 * KUBERNETES_EXEC_INFO is whatever the environment of `auth kube-credential` holds: kubectl's
 * ExecCredential (any version, any `spec`), or anything a user or a script exported. The
 * answer is the version asked for, or one configuration error naming the variable on one
 * line: never a throw of another kind, never a stack trace.
 */

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

const unit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\r', '\u2028', '\u0085', '\u009b', '\x1b', '\x7f', '"', '\\') },
);
const text = fc.string({ unit, maxLength: 120 });
const apiVersion = fc.oneof(
  fc.constantFrom(V1, V1BETA1, 'client.authentication.k8s.io/v1alpha1', `${V1} `, V1.toUpperCase(), ''),
  text,
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(undefined),
);
const kind = fc.oneof(
  fc.constantFrom('ExecCredential', 'execcredential', 'Config'),
  text,
  fc.jsonValue({ maxDepth: 1 }),
);
/** kubectl's document and its variations: any spec, extra fields, fields missing. */
const execInfo = fc.record(
  {
    kind,
    apiVersion,
    spec: fc.oneof(
      fc.record({ interactive: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }),
      fc.jsonValue({ maxDepth: 3 }),
    ),
    status: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);
/** The variable's text: kubectl's JSON (with any spacing), any JSON, broken JSON, anything. */
/** kubectl's shape with the version it asks for varied. */
const kubectlLike = fc
  .tuple(apiVersion, fc.record({ interactive: fc.boolean() }))
  .map(([v, spec]) => JSON.stringify({ kind: 'ExecCredential', apiVersion: v, spec }));
const raw = fc.oneof(
  { weight: 4, arbitrary: kubectlLike },
  {
    weight: 4,
    arbitrary: fc.tuple(execInfo, fc.constantFrom(undefined, 1, '\t')).map(([d, s]) => JSON.stringify(d, null, s)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: execInfo.map((d) => JSON.stringify(d).slice(0, -1)) },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom(undefined, '', ' \n\t', '[]', 'null', '{}', '{"kind":"ExecCredential"}') },
  { weight: 1, arbitrary: fc.nat({ max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`) },
);

function read(value: string | undefined): { ok: ReturnType<typeof parseExecInfo> } | { err: unknown } {
  try {
    return { ok: parseExecInfo(value) };
  } catch (err) {
    return { err };
  }
}

/** What the variable asks for, read independently: the version, or undefined when skiff must refuse it. */
function asked(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return V1BETA1;
  let doc: unknown;
  try {
    doc = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const fields = doc as Record<string, unknown>;
  return fields.kind === 'ExecCredential' && (fields.apiVersion === V1 || fields.apiVersion === V1BETA1)
    ? fields.apiVersion
    : undefined;
}

describe('parseExecInfo on generated KUBERNETES_EXEC_INFO values', () => {
  it('the version kubectl asks for, exactly; else one configuration error naming the variable on one line', () => {
    fc.assert(
      fc.property(raw, (value) => {
        const outcome = read(value);
        const expected = asked(value);
        if ('ok' in outcome) {
          expect(outcome.ok).toEqual({ apiVersion: expected });
          expect(EXEC_API_VERSIONS).toContain(outcome.ok.apiVersion);
          return;
        }
        expect(expected).toBeUndefined();
        expect(outcome.err).toBeInstanceOf(ConfigurationError);
        const err = outcome.err as ConfigurationError;
        expect(err.code).toBe('KUBE.BAD_EXEC_INFO');
        expect(err.message.startsWith('KUBERNETES_EXEC_INFO ')).toBe(true);
        expect(err.message).toMatch(/run `skiff auth setup-kube`/);
        // One line, nothing a terminal acts on, short whatever the variable held.
        // eslint-disable-next-line no-control-regex -- control characters are what must not appear
        expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(err.message.length).toBeLessThan(400);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('the credential answered for any accepted request is an ExecCredential of that very version', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(V1, V1BETA1),
        fc.string({ maxLength: 60 }),
        fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }),
        (version, token, expiresAt) => {
          const info = parseExecInfo(JSON.stringify({ kind: 'ExecCredential', apiVersion: version, spec: {} }));
          const credential = JSON.parse(JSON.stringify(execCredential(info, token, expiresAt))) as {
            kind: string;
            apiVersion: string;
            status: { token: string; expirationTimestamp: string };
          };
          expect(credential.kind).toBe('ExecCredential');
          expect(credential.apiVersion).toBe(version);
          expect(credential.status.token).toBe(token);
          expect(credential.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
          expect(Date.parse(credential.status.expirationTimestamp)).toBeLessThanOrEqual(expiresAt.getTime() - 60_000);
        },
      ),
      PROPERTY_BUDGET,
    );
  });
});
