export const GIT_CONFIG = Symbol('GitConfig');

/** The user's global git configuration (~/.gitconfig or $XDG_CONFIG_HOME/git/config, as git picks). */
export interface GitConfig {
  /**
   * Makes `helper` the only credential helper git uses for URLs under `origin`
   * (`credential.<origin>.helper`: an empty entry resets the list, then ours).
   * Where it was written.
   */
  setCredentialHelper(origin: string, helper: string): Promise<string>;
}
