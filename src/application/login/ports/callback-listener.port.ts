import { CallbackPage } from '../../../domain/login/auth/callback-page';

export const CALLBACK_LISTENER = Symbol('CallbackListener');

/** One listening socket on 127.0.0.1 waiting for the browser's redirect. */
export interface CallbackServer {
  readonly port: number;
  /**
   * The request target of the first `GET /callback` request. Other requests (no
   * request line, another path or method, a connection that sends nothing) are
   * answered with an error status and the wait goes on.
   */
  nextCallback(): Promise<string>;
  /** Answers the callback request and closes the listener. */
  reply(page: CallbackPage): Promise<void>;
  close(): Promise<void>;
}

export interface CallbackListener {
  /** Binds `port`, or else the preferred ports in order, or else an ephemeral one. */
  listen(port?: number): Promise<CallbackServer>;
}
