import { parseAuthArgs } from '../../../src/infrastructure/entry/auth';
import { rejectEnvFlag } from '../../../src/adapters/login/inbound/cli/auth-command';
import { UsageError } from '../../../src/domain/shared/errors';

describe('the auth fast path understands exactly', () => {
  it('token and status with --domain, --context (also =value) and --json', () => {
    expect(parseAuthArgs(['token'])).toEqual({ verb: 'token', json: false });
    expect(parseAuthArgs(['token', '--domain', 'a.org', '--context=prod'])).toEqual({
      verb: 'token',
      domain: 'a.org',
      context: 'prod',
      json: false,
    });
    expect(parseAuthArgs(['kube-credential', '--context', 'prod'])).toEqual({
      verb: 'kube-credential',
      context: 'prod',
      json: false,
    });
    expect(parseAuthArgs(['token', '--json', '--context', 'prod'])).toEqual({
      verb: 'token',
      context: 'prod',
      json: true,
    });
    expect(parseAuthArgs(['status', '--json', '--domain=a.org'])).toEqual({
      verb: 'status',
      domain: 'a.org',
      json: true,
    });
  });

  it('git-credential with its operation last, as git appends it to the helper line', () => {
    for (const operation of ['get', 'store', 'erase'] as const) {
      expect(parseAuthArgs(['git-credential', operation])).toEqual({ verb: 'git-credential', operation, json: false });
      expect(parseAuthArgs(['git-credential', '--context', 'prod', operation])).toEqual({
        verb: 'git-credential',
        operation,
        context: 'prod',
        json: false,
      });
      expect(parseAuthArgs(['git-credential', '--domain=a.org', operation])).toEqual({
        verb: 'git-credential',
        operation,
        domain: 'a.org',
        json: false,
      });
    }
  });

  it.each([
    [['login']],
    [['git-credential']],
    [['git-credential', 'fill']],
    [['git-credential', 'get', 'get']],
    [['git-credential', 'get', '--context', 'prod']],
    [['git-credential', '--context', 'get']],
    [['git-credential', '--json', 'get']],
    [['git-credential', '--help', 'get']],
    [['git-credential', '--env', 'prod', 'get']],
    [['setup-git']],
    [['toString']],
    [[]],
    [['token', '--json', '--json']],
    [['token', '--help']],
    [['token', '--env', 'prod']],
    [['token', '--domain']],
    [['token', '--domain', '--context', 'x']],
    [['token', '--domain=']],
    [['token', '--domain', 'a', '--domain', 'b']],
    [['status', '--json', '--json']],
    [['kube-credential', '--json']],
    [['setup-kube']],
    [['status', 'extra']],
  ])('and hands %j to oclif', (argv) => {
    expect(parseAuthArgs(argv)).toBeUndefined();
  });
});

describe('--env', () => {
  it('is a usage error pointing to --context, in any form', () => {
    for (const argv of [['--env', 'prod'], ['--env=prod'], ['--domain', 'x', '--env']]) {
      expect(() => rejectEnvFlag(argv)).toThrow(UsageError);
      expect(() => rejectEnvFlag(argv)).toThrow(/--context/);
    }
    expect(() => rejectEnvFlag(['--', '--env'])).not.toThrow();
    expect(() => rejectEnvFlag(['--environment-file'])).not.toThrow();
  });
});
