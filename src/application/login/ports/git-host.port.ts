export const GIT_HOST = Symbol('GitHost');

/** The git hosting service (Gitea API). */
export interface GitHost {
  /**
   * GET <base>/api/v1/user with `Authorization: token <token>`: the user's login, or
   * undefined when the reply has none. A failure status is an identity error.
   */
  currentUser(baseUrl: string, token: string): Promise<{ login?: string }>;
}
