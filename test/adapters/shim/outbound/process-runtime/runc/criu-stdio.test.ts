import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  criuFileKey,
  criuStdioConfig,
  externalStdio,
  openFileKey,
  readStdioRecord,
  STDIO_RECORD,
  writeStdioRecord,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/criu-stdio';
import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';

function readlinkOr(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

describe('the stdio criu is told is external', () => {
  it("is the FIFO or file the stdio strings name, found at whichever descriptor a shell's redirection moved it to", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-stdio-'));
    const out = join(dir, 'c1-stdout');
    const err = join(dir, 'c1-stderr');
    execFileSync('mkfifo', [out]);
    writeFileSync(err, '');
    // The FIFO's reader (containerd's), so that its writer opens at once.
    const reader = openSync(out, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(out, constants.O_WRONLY);
    const errFd = openSync(err, 'a');
    // As busybox sh in `echo > /tmp/count`: stdout saved elsewhere (10 there, 9 here: dash
    // takes one digit), descriptor 1 the redirection's file.
    const child = spawn('sh', ['-c', `exec 9>&1 1>${join(dir, 'count')}; exec sleep 30`], {
      stdio: ['ignore', writer, errFd],
    });
    try {
      const pid = child.pid as number;
      const deadline = Date.now() + 5000;
      while (readlinkOr(`/proc/${pid}/fd/9`) === undefined || !readlinkOr(`/proc/${pid}/exe`)?.endsWith('sleep')) {
        if (Date.now() > deadline) throw new Error('the shell did not redirect');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const fifoKey = openFileKey(pid, 9);
      expect(fifoKey).toMatch(/^file\[[0-9a-f]+:[0-9a-f]+\]$/);
      expect(openFileKey(pid, 1)).not.toEqual(fifoKey);
      const stdio = { stdin: '', stdout: out, stderr: err, terminal: false };
      expect(externalStdio(stdio)).toEqual([
        { fd: 1, key: fifoKey },
        { fd: 2, key: openFileKey(pid, 2) },
      ]);
      // One file for both streams is one entry; a file:// URI names its file.
      expect(externalStdio({ ...stdio, stderr: `file://${out}` })).toEqual([{ fd: 1, key: fifoKey }]);
      // A terminal's or a logger's stdio is none the container holds; a path not there names nothing.
      expect(externalStdio({ ...stdio, terminal: true })).toEqual([]);
      expect(externalStdio({ ...stdio, stdout: 'binary:///usr/bin/logger' })).toEqual([]);
      expect(externalStdio({ stdin: join(dir, 'gone'), stdout: '', stderr: '', terminal: false })).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      for (const fd of [reader, writer, errFd]) closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is a descriptor open by path: a pipe, a socket or one not open has no key', () => {
    const facts = openFileKey(process.pid, 987654);
    expect(facts).toBeUndefined();
    const child = spawn('sleep', ['30'], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      expect(openFileKey(child.pid as number, 0)).toBeUndefined();
      // /dev/null is a device, which runc reopens inside the container.
      expect(openFileKey(child.pid as number, 1)).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("is named by criu's key, mount id and inode in hex, in the configuration of the dump and of the restore", () => {
    expect(criuFileKey(30, 0x1234abcdn)).toBe('file[1e:1234abcd]');
    const entries = [
      { fd: 0, key: 'file[1e:10]' },
      { fd: 1, key: 'file[1e:11]' },
    ];
    expect(criuStdioConfig(entries, 'dump')).toBe('external file[1e:10]\nexternal file[1e:11]\n');
    expect(criuStdioConfig(entries, 'restore')).toBe('inherit-fd fd[0]:file[1e:10]\ninherit-fd fd[1]:file[1e:11]\n');
    expect(criuStdioConfig([], 'restore')).toBe('');
  });

  it('is recorded beside the images; a record missing, unreadable or naming other descriptors is nothing to inherit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-stdio-'));
    try {
      expect(readStdioRecord(dir)).toEqual([]);
      writeStdioRecord(dir, [{ fd: 2, key: 'file[1e:12]' }]);
      expect(readStdioRecord(dir)).toEqual([{ fd: 2, key: 'file[1e:12]' }]);
      writeFileSync(join(dir, STDIO_RECORD), 'not json');
      expect(readStdioRecord(dir)).toEqual([]);
      writeFileSync(
        join(dir, STDIO_RECORD),
        JSON.stringify([
          { fd: 7, key: 'file[1e:12]' },
          { fd: 1, key: 'file[1e:12]\ninherit-fd fd[3]:x' },
          { fd: 1, key: 'file[1e:13]' },
        ]),
      );
      expect(readStdioRecord(dir)).toEqual([{ fd: 1, key: 'file[1e:13]' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the restore in one line, without waiting or reading it whole, for a record that is a FIFO, a link or too large', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-stdio-'));
    const record = join(dir, STDIO_RECORD);
    const refused = (what: string) => {
      let thrown: unknown;
      try {
        readStdioRecord(dir);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect(thrown).toMatchObject({
        code: 'CRIU.STDIO_RECORD',
        message: `the checkpoint's ${record} ${what}: it is not a record skiff wrote; restore from another checkpoint`,
      });
    };
    try {
      // A FIFO nobody writes: a blocking open or read would never return (the event loop with it).
      execFileSync('mkfifo', [record]);
      refused('is not a regular file: remove it');
      rmSync(record);
      // /dev/zero read whole would fill the memory.
      symlinkSync('/dev/zero', record);
      refused('is a symbolic link, which skiff never follows for its own files: remove the link');
      rmSync(record);
      writeFileSync(record, `[${' '.repeat(64 * 1024)}]`);
      refused('is larger than 65536 bytes');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
