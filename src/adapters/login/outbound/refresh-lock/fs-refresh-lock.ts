import { closeSync, constants, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { safeDomain } from '../../../../domain/login/auth/safe-domain';
import { ConfigurationError } from '../../../../domain/shared/errors';
import { RefreshLock } from '../../../../application/login/ports/refresh-lock.port';
import { describeFsError } from '../../helpers/atomic-file';
import { readRegularFile, UnsafeFileError } from '../../../shared/helpers/no-follow-file';
import { makeDirs } from '../../../shared/helpers/make-dirs';
import { processAlive } from '../../../shared/helpers/process-alive';

/** "<pid> <ms>": a few bytes; more is not a lock of ours. */
const MAX_LOCK_BYTES = 4096;

/** O_EXCL already refuses any existing name, a link included; O_NOFOLLOW says so. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface LockTiming {
  /** How long a command waits for another one's refresh before giving up. */
  readonly waitMs: number;
  /** A lock this old is stale even if its pid is alive (pid reuse, another host). */
  readonly staleMs: number;
  readonly pollMs: number;
}

/** A refresh is two HTTP requests bounded by their time-outs; these leave room for both. */
export const DEFAULT_LOCK_TIMING: LockTiming = { waitMs: 60_000, staleMs: 120_000, pollMs: 25 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A per-domain lock file `<safe_domain>.lock` beside the cache, created with O_EXCL
 * and holding "<pid> <ms since epoch>". A lock whose process is gone (a refresher
 * killed mid-way) or that is older than `staleMs` is broken, by one process at a
 * time: breaking takes the `.break` lock, then checks the lock still holds what was
 * judged stale before removing it, so two breakers never remove a fresh lock.
 * A lock is never read through a symbolic link (nor a FIFO, which would block):
 * such a lock is an error naming it at once, not a minute's wait.
 */
export class FsRefreshLock implements RefreshLock {
  constructor(
    private readonly directory: string,
    private readonly timing: LockTiming = DEFAULT_LOCK_TIMING,
  ) {}

  async withLock<T>(domain: string, work: () => Promise<T>): Promise<T> {
    const path = join(this.directory, `${safeDomain(domain)}.lock`);
    const mine = await this.acquire(path);
    try {
      return await work();
    } finally {
      this.release(path, mine);
    }
  }

  private async acquire(path: string): Promise<string> {
    const deadline = Date.now() + this.timing.waitMs;
    for (;;) {
      const content = this.tryCreate(path);
      if (content !== undefined) return content;
      this.breakIfStale(path);
      if (Date.now() > deadline) {
        throw new ConfigurationError(
          `waited ${this.timing.waitMs / 1000} s for the token refresh lock ${path}: remove it if no skiff command is running`,
          'AUTH.LOCK_TIMEOUT',
        );
      }
      await sleep(this.timing.pollMs + Math.floor(Math.random() * this.timing.pollMs));
    }
  }

  /** The lock's content when this process created it, undefined when it exists already. */
  private tryCreate(path: string, ownerContent = `${process.pid} ${Date.now()}`): string | undefined {
    let fd: number;
    try {
      makeDirs(join(path, '..'), 0o700);
      fd = openSync(path, CREATE_FLAGS, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw new ConfigurationError(
        `cannot create the token refresh lock ${path}: ${describeFsError(err)}`,
        'AUTH.LOCK_FAILED',
      );
    }
    try {
      writeSync(fd, ownerContent);
    } finally {
      closeSync(fd);
    }
    return ownerContent;
  }

  private isStale(path: string, content: string): boolean {
    const [pid, since] = content.split(' ').map(Number);
    if (Number.isInteger(pid) && pid > 0 && Number.isFinite(since)) {
      return !processAlive(pid) || Date.now() - since > this.timing.staleMs;
    }
    // Being written this very moment, or garbage: judge it by its age.
    try {
      return Date.now() - lstatSync(path).mtimeMs > this.timing.staleMs;
    } catch {
      return false;
    }
  }

  private breakIfStale(path: string): void {
    const judged = this.readLock(path);
    if (judged === undefined || !this.isStale(path, judged)) return;
    const breaker = `${path}.break`;
    if (this.tryCreate(breaker) === undefined) {
      const held = this.readLock(breaker);
      // A breaker that died while breaking (it takes microseconds) is removed.
      if (held !== undefined && this.isStale(breaker, held)) this.unlinkIf(breaker, held);
      return;
    }
    try {
      this.unlinkIf(path, judged);
    } finally {
      this.unlink(breaker);
    }
  }

  private release(path: string, mine: string): void {
    try {
      this.unlinkIf(path, mine);
    } catch {
      // Something else took the lock's place: not ours to remove, and the work is done.
    }
  }

  private unlinkIf(path: string, expected: string): void {
    if (this.readLock(path) === expected) this.unlink(path);
  }

  /** The lock's content; undefined when it is gone (or unreadable: judged again next poll). */
  private readLock(path: string): string | undefined {
    try {
      return readRegularFile(path, { limit: MAX_LOCK_BYTES });
    } catch (err) {
      if (err instanceof UnsafeFileError) {
        throw new ConfigurationError(`the token refresh lock ${path} ${err.message}`, 'AUTH.LOCK_FAILED');
      }
      return undefined;
    }
  }

  private unlink(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
  }
}
