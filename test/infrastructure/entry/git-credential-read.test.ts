import { writeFileSync } from 'node:fs';
import { cachedAnswer } from '../../../src/infrastructure/entry/git-credential-read';
import { ReadPathHome } from '../../support/read-path-home';

/**
 * The read path of `auth git-credential` (entry/git-credential-read.ts) answers only from
 * what the contexts file and the cache hold now, and leaves every other case, notices
 * included, to the auth bundle, whose answers test/e2e/login/git-credential.test.ts holds
 * to the oclif command's.
 */
describe('auth git-credential from the cache alone', () => {
  let home: ReadPathHome;
  beforeEach(() => (home = new ReadPathHome()));
  afterEach(() => home.remove());
  const request = (host: string) => `protocol=https\nhost=${host}\npath=team/app.git\n\n`;
  const answer = (argv: string[], input: string) => cachedAnswer(['git-credential', ...argv], home.env, input);

  it("get: the git token, for the git host of the flag's or the context's domain only", async () => {
    home.record('prod.test', { gitea_token: 'prod-git' });
    home.record('dev.test', { gitea_token: 'dev-git' });
    expect(await answer(['get'], request('src.prod.test'))).toBe(
      'protocol=https\nhost=src.prod.test\nusername=skiff\npassword=prod-git\n',
    );
    expect(await answer(['--context', 'dev', 'get'], request('src.dev.test'))).toContain('password=dev-git\n');
    expect(await answer(['--domain', 'dev.test', 'get'], request('src.dev.test'))).toContain('password=dev-git\n');
    // Another host is GitCredential's to refuse, with its notice; so is a record without a git token.
    expect(await answer(['get'], request('evil.example.com'))).toBeUndefined();
    home.record('prod.test');
    expect(await answer(['get'], request('src.prod.test'))).toBeUndefined();
  });

  it('store and erase: nothing to say, once the request reads as git writes it', async () => {
    for (const operation of ['store', 'erase']) {
      expect(await answer([operation], request('src.prod.test'))).toBe('');
      expect(await answer([operation], 'nonsense\n')).toBeUndefined();
    }
  });

  it('leaves to the full path a domain it would read from the cache, with its notice', async () => {
    writeFileSync(home.configFile, 'contexts: []\n');
    home.record('', { gitea_token: 'g' });
    expect(await answer(['get'], request('src.prod.test'))).toBeUndefined();
  });

  it('leaves errors to the full path: an unknown context, a broken contexts file, no HOME', async () => {
    home.record('prod.test', { gitea_token: 'prod-git' });
    expect(await answer(['--context', 'nope', 'get'], request('src.prod.test'))).toBeUndefined();
    expect(await cachedAnswer(['git-credential', 'get'], {}, request('src.prod.test'))).toBeUndefined();
    writeFileSync(home.configFile, 'contexts: 3\n');
    expect(await answer(['get'], request('src.prod.test'))).toBeUndefined();
  });

  it('answers no other call', async () => {
    for (const argv of [['token'], ['status'], ['git-credential', '--help'], ['git-credential', 'fill']]) {
      expect([argv, await cachedAnswer(argv, home.env, request('src.prod.test'))]).toEqual([argv, undefined]);
    }
  });
});
