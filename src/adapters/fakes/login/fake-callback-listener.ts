import {
  CallbackListener,
  CallbackOutcome,
  CallbackServer,
} from '../../../application/login/ports/callback-listener.port';

/** A callback listener whose "browser" is the test: `deliver(target)` sends the callback. */
export class FakeCallbackListener implements CallbackListener {
  readonly replies: CallbackOutcome[] = [];
  requestedPort: number | undefined | 'not listened' = 'not listened';
  closed = false;
  port = 9876;
  private deliverTo: ((target: string) => void) | undefined;
  private pending: string | undefined;
  /** Called with the server once it listens (e.g. to deliver a callback built from the printed URL). */
  onListen: ((server: CallbackServer) => void) | undefined;

  async listen(port?: number): Promise<CallbackServer> {
    this.requestedPort = port;
    const server: CallbackServer = {
      port: port ?? this.port,
      nextCallback: () =>
        this.pending !== undefined
          ? Promise.resolve(this.pending)
          : new Promise<string>((resolve) => (this.deliverTo = resolve)),
      reply: async (outcome) => {
        this.replies.push(outcome);
      },
      close: async () => {
        this.closed = true;
      },
    };
    this.onListen?.(server);
    return server;
  }

  deliver(target: string): void {
    if (this.deliverTo) this.deliverTo(target);
    else this.pending = target;
  }
}
