import { GetSession, Session } from '../../application/login/auth/get-session.use-case';
import { AuthCommand } from '../login/inbound/cli/auth-command';

/**
 * The base of a plugin's command. It has skiff's `--domain` and `--context` flags
 * (and refuses the removed `--env`), reports errors as skiff's commands do (one
 * line on stderr, the contract's exit code by error kind) and fails loudly when its
 * work is left pending. `session(flags)` gives the active context, the service URLs
 * and a valid access token, obtained exactly as `skiff auth token` obtains it: a
 * plugin never reads the token cache itself.
 */
export abstract class SkiffCommand extends AuthCommand {
  /** The session of the context and domain that `--context` and `--domain` (when given) select. */
  protected session(flags: { domain?: string; context?: string }): Promise<Session> {
    return this.resolve(GetSession).execute(this.target(flags));
  }
}
