import { rpcCodeName } from '../rpc-code';

/** A call that ended with a status: the server's google.rpc.Status, or the client's own (closed, timed out). */
export class TtrpcError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${rpcCodeName(code)}: ${details}`);
    this.name = 'TtrpcError';
  }
}
