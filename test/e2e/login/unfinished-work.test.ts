import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliHome, CliResult } from '../support/skiff-home';
import { viaOclif } from '../support/via-oclif';

// A command whose work is still pending when the event loop empties must fail
// loudly (exit 1, one line), through the fast path and through oclif alike. The
// stand-in for such a bug: every timer unreferenced (a preloaded script), while
// `auth token` waits for a refresh lock held by a live process (this one).

const PRELOAD = join(__dirname, '..', 'support', 'unreferenced-timers.js');
const EXPIRED = {
  access_token: 'old',
  refresh_token: 'refresh-1',
  expires_at: '2020-01-01T00:00:00Z',
  domain: 'example.test',
};
const LINE =
  'skiff: auth token ended with its work unfinished (nothing kept the process alive while it waited): this is a bug, please report it\n';

describe('work left pending on an empty event loop', () => {
  let home: CliHome;
  beforeAll(async () => {
    home = new CliHome();
    expect((await home.run(['config', 'set', '--host', 'example.test'])).code).toBe(0);
    mkdirSync(home.authDir, { recursive: true });
    writeFileSync(home.cacheFile('example.test'), JSON.stringify(EXPIRED));
    writeFileSync(join(home.authDir, 'example.test.lock'), `${process.pid} ${Date.now()}`);
    home.env.NODE_OPTIONS = `--require ${PRELOAD}`;
  });
  afterAll(() => home.remove());

  const loud = (result: CliResult) => expect(result).toEqual({ code: 1, stdout: '', stderr: LINE });

  it('auth token through the fast path exits 1 with one line saying so, not 0 with nothing', async () => {
    loud(await home.run(['auth', 'token']));
  });

  it('auth token through oclif: the same', async () => {
    loud(await viaOclif(home, ['auth', 'token']));
  });
});
