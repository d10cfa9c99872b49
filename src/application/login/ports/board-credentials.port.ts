export const BOARD_CREDENTIALS = Symbol('BoardCredentials');

/** What the board tool accepts from us, stored per domain beside the token cache. */
export interface BoardCredentialRecord {
  /** The token the exchange endpoint issued. */
  readonly boardToken?: string;
  /** A Planka API key, for deployments without the exchange endpoint. */
  readonly apiKey?: string;
}

export interface BoardCredentials {
  read(domain: string): Promise<BoardCredentialRecord>;
  write(domain: string, record: BoardCredentialRecord): Promise<void>;
  remove(domain: string): Promise<void>;
}
