import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  criuFileKey,
  criuStdioConfig,
  isExternal,
  readStdioRecord,
  STDIO_RECORD,
  writeStdioRecord,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/criu-stdio';
import { InvalidArgumentError } from '../../../../../../src/domain/shared/errors';

describe('the stdio criu is told is external', () => {
  it('is a FIFO or a file opened by path; pipes, sockets and devices criu handles itself', () => {
    const facts = { ino: 1n, mntId: 30 };
    expect(isExternal({ ...facts, link: '/run/containerd/fifo/1/c1-stdin', kind: 'fifo' })).toBe(true);
    expect(isExternal({ ...facts, link: '/var/log/pods/c1.log', kind: 'file' })).toBe(true);
    expect(isExternal({ ...facts, link: 'pipe:[4242]', kind: 'fifo' })).toBe(false);
    expect(isExternal({ ...facts, link: 'socket:[4242]', kind: 'other' })).toBe(false);
    expect(isExternal({ ...facts, link: '/dev/null', kind: 'other' })).toBe(false);
    expect(isExternal({ ...facts, link: '/dev/pts/0', kind: 'other' })).toBe(false);
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
