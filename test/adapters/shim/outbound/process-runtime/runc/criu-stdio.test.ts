import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
});
