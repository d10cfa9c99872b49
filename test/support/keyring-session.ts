import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretStore } from '../../src/application/login/ports/secret-store.port';
import { ConfigurationError } from '../../src/domain/shared/errors';

/** What the keyring tests run: a private D-Bus session with gnome-keyring's Secret Service in it. */
const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
const PACKAGES = 'gnome-keyring dbus dbus-x11 libsecret-tools';
let noted = false;

/**
 * Whether the tests of the real OS keyring run here. A missing tool leaves them out with one
 * line on stderr saying what to install, so `npm test` passes on any machine; CI=true (or
 * SKIFF_KEYRING_TESTS=1) makes it a failure instead, and SKIFF_KEYRING_TESTS=0 leaves them out.
 */
export function keyringTestsRunHere(): boolean {
  if (process.env.SKIFF_KEYRING_TESTS === '0') return false;
  // secret-tool has no --version: presence on the PATH is the test.
  const missing = TOOLS.filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0) return true;
  const line = `the OS keyring tests cannot run: ${missing.join(', ')} missing (apt-get install ${PACKAGES})`;
  if (process.env.CI === 'true' || process.env.SKIFF_KEYRING_TESTS === '1') throw new Error(line);
  if (!noted) process.stderr.write(`${line}; left out (CI=true makes this an error)\n`);
  noted = true;
  return false;
}

/**
 * A D-Bus session of its own (`dbus-run-session`), with gnome-keyring-daemon's Secret Service
 * unlocked non-interactively (its password on stdin) or, with `unlocked: false`, started on
 * first use with its collection locked and no display to prompt on. Its keyrings live in a
 * temporary home. `stop` ends the session's process group (the bus, the daemon, the shell).
 */
export class KeyringSession {
  private constructor(
    private readonly child: ChildProcess,
    private readonly home: string,
    readonly address: string,
  ) {}

  static async start(options: { unlocked?: boolean } = {}): Promise<KeyringSession> {
    const home = mkdtempSync(join(tmpdir(), 'skiff-keyring-'));
    const unlock =
      options.unlocked === false
        ? ''
        : 'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && ';
    const child = spawn(
      'dbus-run-session',
      ['--', 'sh', '-c', `${unlock}echo "$DBUS_SESSION_BUS_ADDRESS"; exec sleep 600`],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), KEYRING_PASSWORD: 'test' },
      },
    );
    let errors = '';
    child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`dbus-run-session exited ${code}: ${errors}`)));
    });
    return new KeyringSession(child, home, address);
  }

  /** The environment a process needs to reach this session's keyring. */
  env(): { DBUS_SESSION_BUS_ADDRESS: string } {
    return { DBUS_SESSION_BUS_ADDRESS: this.address };
  }

  /** `secret-tool search --all service skiff` in this session: the accounts skiff keeps (an independent look). */
  accounts(): string[] {
    const found = spawnSync('secret-tool', ['search', '--all', '--unlock', 'service', 'skiff'], {
      env: { ...process.env, ...this.env() },
      encoding: 'utf8',
    });
    // secret-tool prints the attributes on stderr, the rest on stdout.
    return [...`${found.stdout}\n${found.stderr}`.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]).sort();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.pid !== undefined) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      process.kill(-this.child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** A bus address where nothing listens: a machine without a session bus (so none is found elsewhere). */
export const NO_BUS = 'unix:path=/nonexistent/skiff-test/bus';

/**
 * The built OsKeyringSecretStore (dist/), each call in a node process of its own with this
 * D-Bus address (keyring-call.js): the library keeps the connection it makes for the life of
 * a process, as a skiff command is, so a test process must never open one itself (nor reach
 * a developer's own keyring through its environment). Errors come back as they were thrown.
 */
export class OsKeyringInChild implements SecretStore {
  /** `address` undefined: no DBUS_SESSION_BUS_ADDRESS at all. */
  constructor(private readonly address: string | undefined) {}

  async set(account: string, secret: string): Promise<void> {
    this.call('set', account, secret);
  }

  async get(account: string): Promise<string | undefined> {
    return (this.call('get', account) as string | null) ?? undefined;
  }

  async delete(account: string): Promise<boolean> {
    return this.call('delete', account) as boolean;
  }

  private call(op: string, account: string, input = ''): unknown {
    const run = spawnSync(process.execPath, [join(__dirname, 'keyring-call.js'), op, account], {
      input,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: tmpdir(),
        ...(this.address === undefined ? {} : { DBUS_SESSION_BUS_ADDRESS: this.address }),
      },
    });
    let reply: { value?: unknown; error?: { code: string; message: string } };
    try {
      reply = JSON.parse(run.stdout) as typeof reply;
    } catch {
      throw new Error(`keyring-call.js ${op} failed (is dist/ built? npm run build): ${run.stderr}`);
    }
    if (reply.error !== undefined) throw new ConfigurationError(reply.error.message, reply.error.code);
    return reply.value;
  }
}
