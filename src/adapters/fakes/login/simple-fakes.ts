import { createHash } from 'node:crypto';
import { SkiffConfig, EMPTY_CONFIG } from '../../../domain/login/contexts/contexts';
import { gitTokenRejected } from '../../../domain/login/auth/auth-errors';
import { Browser } from '../../../application/login/ports/browser.port';
import { ClusterDiscovery } from '../../../application/login/ports/cluster-discovery.port';
import { ConfigStore } from '../../../application/login/ports/config-store.port';
import { GitHost } from '../../../application/login/ports/git-host.port';
import { Hasher } from '../../../application/login/ports/hasher.port';
import { Notifier } from '../../../application/login/ports/notifier.port';
import { Prompt } from '../../../application/login/ports/prompt.port';
import { Random } from '../../../application/login/ports/random.port';
import { BoardCredentialRecord, BoardCredentials } from '../../../application/login/ports/board-credentials.port';

export class FakeBrowser implements Browser {
  readonly opened: string[] = [];
  works = true;
  /** What "the user" does once the page is open (e.g. complete the sign-in). */
  onOpen: ((url: string) => void) | undefined;
  async open(url: string): Promise<boolean> {
    this.opened.push(url);
    this.onOpen?.(url);
    return this.works;
  }
}

export class FakePrompt implements Prompt {
  readonly questions: string[] = [];
  constructor(public answer = '') {}
  async secret(question: string): Promise<string> {
    this.questions.push(question);
    return this.answer;
  }
}

/** Keeps every line; `all` is everything printed, in order. */
export class RecordingNotifier implements Notifier {
  readonly infos: string[] = [];
  readonly warnings: string[] = [];
  readonly waits: string[] = [];
  info(line: string): void {
    this.infos.push(line);
  }
  warn(line: string): void {
    this.warnings.push(line);
  }
  waiting(line: string): { done(): void } {
    this.waits.push(line);
    return { done: () => undefined };
  }
  get all(): string {
    return [...this.infos, ...this.warnings, ...this.waits].join('\n');
  }
}

export class FakeConfigStore implements ConfigStore {
  saves = 0;
  constructor(public config: SkiffConfig = EMPTY_CONFIG) {}
  async load(): Promise<SkiffConfig> {
    return this.config;
  }
  async save(config: SkiffConfig): Promise<void> {
    this.saves += 1;
    this.config = config;
  }
  location(): string {
    return '/fake/config.yaml';
  }
  render(config: SkiffConfig): string {
    return JSON.stringify(config);
  }
}

export class FakeClusterDiscovery implements ClusterDiscovery {
  calls = 0;
  constructor(public domain: string | undefined = undefined) {}
  async discoverDomain(): Promise<string | undefined> {
    this.calls += 1;
    return this.domain;
  }
}

/** Random bytes from a counter: distinct, repeatable. */
export class SequenceRandom implements Random {
  private next = 1;
  readonly requests: number[] = [];
  bytes(count: number): Uint8Array {
    this.requests.push(count);
    return Uint8Array.from({ length: count }, () => this.next++ & 0xff);
  }
}

export class NodeSha256 implements Hasher {
  sha256(bytes: Uint8Array): Uint8Array {
    return new Uint8Array(createHash('sha256').update(bytes).digest());
  }
}

/** A git host that knows one valid token. */
export class FakeGitHost implements GitHost {
  readonly calls: Array<{ baseUrl: string; token: string }> = [];
  constructor(
    public validToken = 'git-token-1',
    public login: string | undefined = 'alice',
    public rejectStatus = 401,
  ) {}
  async currentUser(baseUrl: string, token: string): Promise<{ login?: string }> {
    this.calls.push({ baseUrl, token });
    if (token !== this.validToken) throw gitTokenRejected(this.rejectStatus, new URL(baseUrl).host);
    return this.login === undefined ? {} : { login: this.login };
  }
}

export class FakeBoardCredentials implements BoardCredentials {
  readonly records = new Map<string, BoardCredentialRecord>();
  async read(domain: string): Promise<BoardCredentialRecord> {
    return this.records.get(domain) ?? {};
  }
  async write(domain: string, record: BoardCredentialRecord): Promise<void> {
    this.records.set(domain, record);
  }
  async remove(domain: string): Promise<void> {
    this.records.delete(domain);
  }
}
