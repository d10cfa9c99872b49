import AuthGitCredential from '../../../src/adapters/commands/auth/git-credential';
import AuthKubeCredential from '../../../src/adapters/commands/auth/kube-credential';
import AuthStatus from '../../../src/adapters/commands/auth/status';
import AuthToken from '../../../src/adapters/commands/auth/token';
import { FlagSpecs } from '../../../src/adapters/shared/inbound/cli/flag-specs';
import { FAST_AUTH_FLAGS } from '../../../src/adapters/login/inbound/cli/fast-auth-args';

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

const COMMANDS: Record<keyof typeof FAST_AUTH_FLAGS, unknown> = {
  token: AuthToken,
  'kube-credential': AuthKubeCredential,
  status: AuthStatus,
  'git-credential': AuthGitCredential,
};

describe("the auth fast path's flags", () => {
  it.each(Object.keys(FAST_AUTH_FLAGS) as Array<keyof typeof FAST_AUTH_FLAGS>)('are those of `auth %s`', (verb) => {
    expect(fastFlagsOf(FAST_AUTH_FLAGS[verb])).toEqual(flagsOf(COMMANDS[verb] as CommandClass));
  });
});
