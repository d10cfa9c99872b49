import AuthStatus from '../../../src/adapters/commands/auth/status';
import AuthToken from '../../../src/adapters/commands/auth/token';
import { FlagSpecs } from '../../../src/adapters/shared/inbound/cli/flag-specs';
import { FAST_AUTH_FLAGS, parseAuthArgs } from '../../../src/infrastructure/entry/auth';
import { rejectEnvFlag } from '../../../src/adapters/login/inbound/cli/auth-command';
import { UsageError } from '../../../src/domain/shared/errors';

describe('the auth fast path understands exactly', () => {
  it('token and status with --domain, --context (also =value) and, for status, --json', () => {
    expect(parseAuthArgs(['token'])).toEqual({ verb: 'token', json: false });
    expect(parseAuthArgs(['token', '--domain', 'a.org', '--context=prod'])).toEqual({
      verb: 'token',
      domain: 'a.org',
      context: 'prod',
      json: false,
    });
    expect(parseAuthArgs(['status', '--json', '--domain=a.org'])).toEqual({
      verb: 'status',
      domain: 'a.org',
      json: true,
    });
  });

  it.each([
    [['login']],
    [['toString']],
    [[]],
    [['token', '--json']],
    [['token', '--help']],
    [['token', '--env', 'prod']],
    [['token', '--domain']],
    [['token', '--domain', '--context', 'x']],
    [['token', '--domain=']],
    [['token', '--domain', 'a', '--domain', 'b']],
    [['status', '--json', '--json']],
    [['status', 'extra']],
  ])('and hands %j to oclif', (argv) => {
    expect(parseAuthArgs(argv)).toBeUndefined();
  });
});

type OclifFlag = { type: string; options?: readonly string[] };
type CommandClass = {
  flags?: Record<string, OclifFlag>;
  baseFlags?: Record<string, OclifFlag>;
  enableJsonFlag?: boolean;
};

/** A command's flags as oclif parses them: name, kind and options. */
function flagsOf(command: CommandClass) {
  const all: Record<string, OclifFlag> = { ...command.baseFlags, ...command.flags };
  if (command.enableJsonFlag) all.json = { type: 'boolean' };
  const kinds = Object.entries(all).map(([name, f]) => [name, f.type === 'option' ? 'string' : f.type, f.options]);
  return kinds.sort(([a], [b]) => String(a).localeCompare(String(b)));
}

function fastFlagsOf(specs: FlagSpecs) {
  const kinds = Object.entries(specs).map(([name, spec]) => [
    name,
    spec.type,
    spec.type === 'string' ? spec.options : undefined,
  ]);
  return kinds.sort(([a], [b]) => String(a).localeCompare(String(b)));
}

const COMMANDS: Record<keyof typeof FAST_AUTH_FLAGS, unknown> = { token: AuthToken, status: AuthStatus };

describe("the auth fast path's flags", () => {
  it.each(Object.keys(FAST_AUTH_FLAGS) as Array<keyof typeof FAST_AUTH_FLAGS>)('are those of `auth %s`', (verb) => {
    expect(fastFlagsOf(FAST_AUTH_FLAGS[verb])).toEqual(flagsOf(COMMANDS[verb] as CommandClass));
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
