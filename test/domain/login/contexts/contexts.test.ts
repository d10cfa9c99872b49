import {
  deleteContext,
  EMPTY_CONFIG,
  overridesFor,
  selectContext,
  setContext,
  setHost,
  SkiffConfig,
  useContext,
} from '../../../../src/domain/login/contexts/contexts';
import { ConfigurationError } from '../../../../src/domain/shared/errors';

const config: SkiffConfig = {
  currentContext: 'prod',
  contexts: [
    { name: 'local', domain: 'local.test' },
    { name: 'prod', domain: 'example.com' },
    { name: 'dev', domain: 'dev.example.com', identityProviderUrl: 'http://127.0.0.1:8080' },
  ],
};

describe('context selection order', () => {
  it('--context first', () => {
    expect(selectContext(config, 'dev')?.name).toBe('dev');
  });

  it('then the current-context setting', () => {
    expect(selectContext(config)?.name).toBe('prod');
  });

  it('then the context named local', () => {
    expect(selectContext({ contexts: config.contexts })?.name).toBe('local');
  });

  it('none at all without a local context', () => {
    expect(selectContext(EMPTY_CONFIG)).toBeUndefined();
  });

  it('a named context that does not exist is a configuration error', () => {
    expect(() => selectContext(config, 'nope')).toThrow(ConfigurationError);
    expect(() => selectContext({ currentContext: 'gone', contexts: [] })).toThrow(/gone/);
  });
});

describe('changing contexts', () => {
  it('set --host changes the current context and keeps it current', () => {
    const { config: changed, context } = setHost(config, 'new.example.com');
    expect(context).toBe('prod');
    expect(selectContext(changed)?.domain).toBe('new.example.com');
  });

  it('set --host creates local and makes it current when nothing is', () => {
    const { config: changed, context } = setHost(EMPTY_CONFIG, 'example.com');
    expect(context).toBe('local');
    expect(changed).toEqual({ currentContext: 'local', contexts: [{ name: 'local', domain: 'example.com' }] });
  });

  it('set-context creates, changes only the given fields, and "" removes an override', () => {
    let changed = setContext(EMPTY_CONFIG, 'dev', { domain: 'dev.org', gitHostUrl: 'https://git.dev.org/' });
    expect(changed.contexts[0]).toEqual({ name: 'dev', domain: 'dev.org', gitHostUrl: 'https://git.dev.org' });
    changed = setContext(changed, 'dev', { boardsUrl: 'https://boards.dev.org/api', domain: undefined });
    expect(changed.contexts[0]).toMatchObject({
      domain: 'dev.org',
      gitHostUrl: 'https://git.dev.org',
      boardsUrl: 'https://boards.dev.org/api',
    });
    changed = setContext(changed, 'dev', { gitHostUrl: '' });
    expect(changed.contexts[0].gitHostUrl).toBeUndefined();
  });

  it('set-context refuses plain http for a non-loopback host and bad names', () => {
    expect(() => setContext(EMPTY_CONFIG, 'x', { identityProviderUrl: 'http://auth.example.com' })).toThrow(/https/);
    expect(() => setContext(EMPTY_CONFIG, 'bad name', { domain: 'a' })).toThrow(ConfigurationError);
  });

  it('use-context needs an existing context', () => {
    expect(useContext(config, 'dev').currentContext).toBe('dev');
    expect(() => useContext(config, 'nope')).toThrow(ConfigurationError);
  });

  it('delete-context clears the current-context setting when it named it', () => {
    expect(deleteContext(config, 'prod')).toEqual({ contexts: [config.contexts[0], config.contexts[2]] });
    expect(deleteContext(config, 'dev').currentContext).toBe('prod');
    expect(() => deleteContext(config, 'nope')).toThrow(ConfigurationError);
  });
});

describe('URL overrides apply to the context own domain only', () => {
  const dev = config.contexts[2];
  it('for its domain', () => {
    expect(overridesFor('dev.example.com', dev)).toBe(dev);
  });
  it('not for another domain', () => {
    expect(overridesFor('example.com', dev)).toEqual({});
    expect(overridesFor('example.com', undefined)).toEqual({});
  });
  it('for any domain when the context names none', () => {
    expect(overridesFor('x.org', { name: 'c', domain: '', gitHostUrl: 'https://g' })).toMatchObject({
      gitHostUrl: 'https://g',
    });
  });
});
