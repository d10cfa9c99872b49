import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

/**
 * The VM bed's own parts that run on the host without booting anything (docs/vm.md): its
 * one-line errors, the image cache key and the shares. The guests themselves run in
 * `npm run test:vm`.
 */
const images = require('../../scripts/vm/images') as {
  imageKey(name: string, env: NodeJS.ProcessEnv): string;
  imagePaths(name: string, env: NodeJS.ProcessEnv): { dir: string };
  recipe(name: string, env: NodeJS.ProcessEnv): { packages: string[] };
};
const bed = require('../../scripts/vm/bed') as {
  parseShare(text: string): { dir: string; tag: string };
  shellQuote(word: string): string;
};

const ROOT = join(__dirname, '../..');

describe('the VM bed on the host', () => {
  it('names a missing program in one line with the apt-get line that brings it', () => {
    const env = { PATH: '/nonexistent' };
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/vm/run.js'), 'sid', '--', 'true'], {
      env,
      encoding: 'utf8',
    });
    expect(run.status).toBe(125);
    expect(run.stderr).toBe(
      'vm: qemu-system-x86_64, mmdebstrap, mke2fs not found: apt-get install -y --no-install-recommends qemu-system-x86 mmdebstrap e2fsprogs\n',
    );
  });

  it('refuses an unknown image or no command with its usage, exit 2', () => {
    for (const args of [['bookworm', '--', 'true'], ['sid']]) {
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/vm/run.js'), ...args], { encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/usage: npm run vm -- IMAGE \[--share DIR:TAG\]\.\.\. \[--\] COMMAND\.\.\./);
    }
  });

  it('keys an image by its recipe: SKIFF_VM_PACKAGES makes another image, in SKIFF_VM_CACHE', () => {
    const base = { SKIFF_VM_CACHE: '/cache' };
    const more = { ...base, SKIFF_VM_PACKAGES: 'strace, jq' };
    expect(images.imageKey('sid', base)).toBe(images.imageKey('sid', { ...base }));
    expect(images.imageKey('sid', more)).not.toBe(images.imageKey('sid', base));
    expect(images.imageKey('trixie', base)).not.toBe(images.imageKey('sid', base));
    expect(images.recipe('sid', more).packages).toEqual(
      expect.arrayContaining(['jq', 'strace', 'containerd', 'nodejs']),
    );
    expect(images.imagePaths('sid', base).dir).toBe(`/cache/sid-${images.imageKey('sid', base)}`);
  });

  it('takes a share as DIR:TAG of an existing folder, and names what is wrong otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-share-'));
    try {
      expect(bed.parseShare(`${dir}:out`)).toEqual({ dir, tag: 'out' });
      expect(() => bed.parseShare(`${dir}/missing:out`)).toThrow(`${dir}/missing is not a directory`);
      expect(() => bed.parseShare(`${dir}:Out`)).toThrow('give DIR:TAG');
      expect(() => bed.parseShare(`${dir}:skiffvm`)).toThrow('not starting with skiff');
      expect(() => bed.parseShare(dir)).toThrow('give DIR:TAG');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("quotes a command's words for the guest's shell", () => {
    expect(['echo', 'a b', "it's", '$HOME'].map(bed.shellQuote).join(' ')).toBe(`echo 'a b' 'it'\\''s' '$HOME'`);
  });
});
