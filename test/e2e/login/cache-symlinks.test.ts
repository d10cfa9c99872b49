import { chmodSync, linkSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, CliResult } from '../support/skiff-home';
import { viaOclif } from '../support/via-oclif';

// A link planted in skiff's own files must never make skiff change another file:
// as root with <domain>.json -> /etc/passwd, reading the cache once made
// /etc/passwd 0600. A temp file readable by all stands in for /etc/passwd here.

const RECORD = {
  access_token: 'link-access',
  refresh_token: '',
  expires_at: '2099-01-01T00:00:00Z',
  domain: 'example.test',
};

describe('links in the token cache, through the fast path and through oclif', () => {
  let home: CliHome;
  let victim: string;
  beforeEach(async () => {
    home = new CliHome();
    expect((await home.run(['config', 'set', '--host', 'example.test'])).code).toBe(0);
    mkdirSync(home.authDir, { recursive: true });
    victim = join(home.dir, 'victim');
    writeFileSync(victim, JSON.stringify(RECORD));
    chmodSync(victim, 0o644);
  });
  afterEach(() => home.remove());

  const victimMode = () => statSync(victim).mode & 0o777;
  const oneLine = (result: CliResult) => expect(result.stderr.trim().split('\n')).toHaveLength(1);

  describe('<domain>.json is a symlink', () => {
    beforeEach(() => symlinkSync(victim, home.cacheFile('example.test')));

    it('auth status (fast path): reports the link and what to do, exit 0; the target keeps its mode', async () => {
      const result = await home.run(['auth', 'status', '--domain', 'example.test']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${home.cacheFile('example.test')}: cannot be read: is a symbolic link`);
      expect(result.stdout).toMatch(/remove the link and sign in again/);
      expect(victimMode()).toBe(0o644);
    });

    it('auth token (fast path): exit 4, one line naming the link, no token printed; the target keeps its mode', async () => {
      const result = await home.run(['auth', 'token']);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(home.cacheFile('example.test'));
      expect(result.stderr).toMatch(/symbolic link/);
      oneLine(result);
      expect(victimMode()).toBe(0o644);
    });

    it('auth status and auth token through oclif answer the same, and change nothing', async () => {
      for (const args of [
        ['auth', 'status'],
        ['auth', 'status', '--json'],
        ['auth', 'token'],
      ]) {
        expect(await viaOclif(home, args)).toEqual(await home.run(args));
      }
      expect(victimMode()).toBe(0o644);
    });

    it('auth logout (oclif): removes the link itself, never the target nor its mode', async () => {
      const result = await home.run(['auth', 'logout']);
      expect(result).toMatchObject({ code: 0, stdout: 'Logged out of example.test.\n' });
      expect(() => lstatSync(home.cacheFile('example.test'))).toThrow(/ENOENT/);
      expect(victimMode()).toBe(0o644);
      expect(JSON.parse(readFileSync(victim, 'utf8'))).toEqual(RECORD);
    });
  });

  describe('<domain>.json is a second hard link of a file readable by others', () => {
    beforeEach(() => linkSync(victim, home.cacheFile('example.test')));

    it('auth status (fast path) and auth logout (oclif) leave its mode alone', async () => {
      const status = await home.run(['auth', 'status']);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/2 hard links/);
      expect(victimMode()).toBe(0o644);
      expect((await home.run(['auth', 'logout'])).code).toBe(0);
      expect(victimMode()).toBe(0o644);
    });
  });

  it('boards set-api-key refuses to write through a linked <domain>.boards.json (exit 3), naming it', async () => {
    const boards = join(home.authDir, 'example.test.boards.json');
    symlinkSync(victim, boards);
    const result = await home.run(['boards', 'set-api-key', 'key-1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(boards);
    expect(result.stderr).toMatch(/symbolic link/);
    oneLine(result);
    expect(victimMode()).toBe(0o644);
    expect(JSON.parse(readFileSync(victim, 'utf8'))).toEqual(RECORD);
  });
});

describe('a config.yaml kept as a dotfile symlink', () => {
  let home: CliHome;
  let dotfile: string;
  const config = () => join(home.env.XDG_CONFIG_HOME as string, 'skiff', 'config.yaml');
  beforeEach(async () => {
    home = new CliHome();
    mkdirSync(join(home.env.XDG_CONFIG_HOME as string, 'skiff'), { recursive: true });
    dotfile = join(home.dir, 'dotfiles-config.yaml');
    writeFileSync(dotfile, 'current-context: dots\ncontexts:\n  - name: dots\n    context:\n      domain: dots.test\n');
    chmodSync(dotfile, 0o644);
    symlinkSync(dotfile, config());
  });
  afterEach(() => home.remove());

  it('is read through the link; a command that would change it is refused (exit 3) naming the link; the dotfile is unchanged', async () => {
    expect(await home.run(['config', 'current-context'])).toMatchObject({ code: 0, stdout: 'dots\n' });
    expect((await home.run(['config', 'get-contexts'])).stdout).toMatch(/\*\s+dots\s+dots\.test/);
    const before = readFileSync(dotfile, 'utf8');
    const result = await home.run(['config', 'set-context', 'other', '--domain', 'other.test']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(config());
    expect(result.stderr).toMatch(/symbolic link/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(dotfile, 'utf8')).toBe(before);
    expect(statSync(dotfile).mode & 0o777).toBe(0o644);
    expect(lstatSync(config()).isSymbolicLink()).toBe(true);
  });
});
