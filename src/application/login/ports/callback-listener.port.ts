export const CALLBACK_LISTENER = Symbol('CallbackListener');

/**
 * What the browser is told after the callback (SSO step 10 of docs/login-contract.md):
 * signed in (and, for `auth login`, where to go next), or why not. The adapter words it.
 */
export type CallbackOutcome =
  { readonly kind: 'success'; readonly redirectTo?: string } | { readonly kind: 'failure'; readonly reason: string };

/** One listening socket on 127.0.0.1 waiting for the browser's redirect. */
export interface CallbackServer {
  readonly port: number;
  /**
   * The request target of the first `GET /callback` request. Other requests (no
   * request line, another path or method, a connection that sends nothing) are
   * answered with an error status and the wait goes on.
   */
  nextCallback(): Promise<string>;
  /** Answers the callback request with a page that says `outcome`, and closes the listener. */
  reply(outcome: CallbackOutcome): Promise<void>;
  close(): Promise<void>;
}

export interface CallbackListener {
  /** Binds `port`, or else the preferred ports in order, or else an ephemeral one. */
  listen(port?: number): Promise<CallbackServer>;
}
