import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { YamlConfigStore } from '../../../../../src/adapters/login/outbound/config-store/yaml-config-store';
import { authPaths, dataDir } from '../../../../../src/infrastructure/login/auth-paths';

describe('the YAML contexts file', () => {
  let dir: string;
  let store: YamlConfigStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-config-'));
    store = new YamlConfigStore(join(dir, 'skiff', 'config.yaml'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing file is the empty configuration', async () => {
    await expect(store.load()).resolves.toEqual({ contexts: [] });
  });

  it('writes kubectl-style YAML and reads it back', async () => {
    const config = {
      currentContext: 'dev',
      contexts: [
        { name: 'prod', domain: 'example.com' },
        {
          name: 'dev',
          domain: 'dev.example.com',
          identityProviderUrl: 'http://127.0.0.1:5556',
          gitHostUrl: 'https://git.dev',
          boardsUrl: 'https://b.dev/api',
          tokenStore: 'keyring' as const,
        },
      ],
    };
    await store.save(config);
    expect(readFileSync(store.location(), 'utf8')).toBe(
      [
        'current-context: dev',
        'contexts:',
        '  - name: prod',
        '    context:',
        '      domain: example.com',
        '  - name: dev',
        '    context:',
        '      domain: dev.example.com',
        '      auth-url: http://127.0.0.1:5556',
        '      git-url: https://git.dev',
        '      boards-url: https://b.dev/api',
        '      token-store: keyring',
        '',
      ].join('\n'),
    );
    await expect(store.load()).resolves.toEqual(config);
    expect(statSync(store.location()).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['invalid YAML', 'contexts: [\n'],
    ['a list at the top', '- a\n'],
    ['contexts not a list', 'contexts: 3\n'],
    ['a context without name', 'contexts:\n  - context: {domain: x}\n'],
    ['a non-string domain', 'contexts:\n  - name: a\n    context: {domain: [1]}\n'],
    ['an unknown token store', 'contexts:\n  - name: a\n    context:\n      token-store: vault\n'],
    // Found by yaml-config-store.property.test.ts: a context that is a scalar was read as one with no fields.
    ['a context that is not a mapping', 'contexts:\n  - name: prod\n    context: 0\n'],
    ['a context that is a list', 'contexts:\n  - name: prod\n    context: [example.com]\n'],
    // ... and a name holding a line break split the message in two.
    // ... and the YAML library's message quoted the file's control characters as they were.
    ['a block scalar header with a line separator', '|\u2028\u0085\u001b[2J\n'],
    ['a name holding a line break', 'contexts:\n  - name: "a\\nb"\n    context: {domain: 1}\n'],
    [
      'a token store of a name and a value holding line breaks',
      'contexts:\n  - name: "a\\nb"\n    context: {token-store: "x\\u2028y"}\n',
    ],
  ])('%s: a configuration error naming the file', async (_, text) => {
    mkdirSync(join(dir, 'skiff'), { recursive: true });
    writeFileSync(store.location(), text);
    const err = await store.load().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain(store.location());
    expect((err as Error).message.split('\n')).toHaveLength(1);
    // eslint-disable-next-line no-control-regex -- control characters are what must not appear
    expect((err as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  });
});

describe('files that would take the YAML library long, or down', () => {
  let dir: string;
  let store: YamlConfigStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-config-'));
    store = new YamlConfigStore(join(dir, 'config.yaml'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Found by yaml-config-store.property.test.ts: 1,000 brackets after a file of 1,000 unclosed
  // ones ended the process (V8: "RegExpCompiler Allocation failed"), which no catch can answer;
  // and a megabyte of brackets took the library 10 s.
  it.each([
    ['1,000 unclosed brackets', '['.repeat(1000)],
    ['1,000 nested flow sequences', `contexts: ${'['.repeat(1000)}${']'.repeat(1000)}\n`],
    ['1,000 nested block sequences', '- '.repeat(1000)],
    ['150 levels of indentation', Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}a${i}:`).join('\n')],
  ])('%s: refused before the library reads it', async (_, text) => {
    writeFileSync(store.location(), text);
    await expect(store.load()).rejects.toThrow(`configuration file ${store.location()} nests deeper than 100 levels`);
  });

  it('a file over 64 KiB is refused; the deepest contexts file is read', async () => {
    writeFileSync(store.location(), `# ${'x'.repeat(64 * 1024)}\n`);
    await expect(store.load()).rejects.toThrow(/is larger than 65536 bytes/);
    writeFileSync(
      store.location(),
      'current-context: a\ncontexts:\n  - name: a\n    context: {domain: "x[y]", auth-url: "https://[::1]:8443"}\n',
    );
    await expect(store.load()).resolves.toEqual({
      currentContext: 'a',
      contexts: [{ name: 'a', domain: 'x[y]', identityProviderUrl: 'https://[::1]:8443' }],
    });
  });
});

describe('where the files live', () => {
  it('data: $XDG_DATA_HOME, else $HOME/.local/share; relative values ignored (XDG spec)', () => {
    expect(dataDir({ XDG_DATA_HOME: '/x/data', HOME: '/h' }, 'linux')).toBe('/x/data');
    expect(dataDir({ XDG_DATA_HOME: '', HOME: '/h' }, 'linux')).toBe('/h/.local/share');
    expect(dataDir({ XDG_DATA_HOME: 'relative', HOME: '/h' }, 'linux')).toBe('/h/.local/share');
    expect(dataDir({ HOME: '/Users/a' }, 'darwin')).toBe('/Users/a/Library/Application Support');
  });

  it('cache at <data_dir>/skiff/auth, config at $XDG_CONFIG_HOME/skiff/config.yaml else $HOME/.config', () => {
    expect(authPaths({ XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/c' }, 'linux')).toEqual({
      authDir: '/d/skiff/auth',
      configFile: '/c/skiff/config.yaml',
    });
    expect(authPaths({ HOME: '/h' }, 'linux')).toEqual({
      authDir: '/h/.local/share/skiff/auth',
      configFile: '/h/.config/skiff/config.yaml',
    });
    expect(authPaths({ XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/c', HOME: 'rel' }, 'linux')).toEqual({
      authDir: '/d/skiff/auth',
      configFile: '/c/skiff/config.yaml',
    });
  });

  it.each([
    ['nothing set', {}],
    ['HOME empty', { HOME: '' }],
    ['HOME relative', { HOME: 'home/me' }],
    ['relative XDG dirs, no HOME', { XDG_DATA_HOME: 'data', XDG_CONFIG_HOME: 'config' }],
    ['only the data dir', { XDG_DATA_HOME: '/d' }],
    ['only the config dir', { XDG_CONFIG_HOME: '/c' }],
  ])('no home to be found (%s): a configuration error naming HOME, never a relative path', (_, env) => {
    const err = (() => {
      try {
        return authPaths(env, 'linux');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toMatch(/HOME is (not set|not an absolute path)/);
    expect((err as Error).message).toMatch(/set HOME/);
  });
});
