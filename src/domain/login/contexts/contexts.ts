import { ConfigurationError } from '../../shared/errors';
import { TokenStoreKind } from '../auth/token-store';
import { checkServiceUrl, UrlOverrides } from './service-urls';

/** The context used when neither --context nor current-context names one. */
export const DEFAULT_CONTEXT = 'local';

/** A kubectl-style context: a named domain, with optional base-URL overrides and token store. */
export interface Context extends UrlOverrides {
  readonly name: string;
  readonly domain: string;
  /** Where its tokens' secrets are kept; absent: `file`. */
  readonly tokenStore?: TokenStoreKind;
  /** `always`: authorization requests are pushed (RFC 9126) even when the provider does not require it. */
  readonly par?: ContextAlways;
  /** `always`: tokens are bound to a DPoP key (RFC 9449) even when the provider does not ask for it. */
  readonly dpop?: ContextAlways;
}

/** The one value `par` and `dpop` take in a context; absent means "as the provider says". */
export type ContextAlways = 'always';

export interface SkiffConfig {
  readonly currentContext?: string;
  readonly contexts: readonly Context[];
}

export const EMPTY_CONFIG: SkiffConfig = { contexts: [] };

/** The fields `set-context` can change; '' clears an override. */
export type ContextChanges = Partial<Omit<Context, 'name' | 'par' | 'dpop'>> & {
  readonly par?: ContextAlways | '';
  readonly dpop?: ContextAlways | '';
};

function notFound(name: string, where: string): ConfigurationError {
  return new ConfigurationError(
    `context ${JSON.stringify(name)} (${where}) does not exist: see \`skiff config get-contexts\` or create it with \`skiff config set-context ${name} --domain <domain>\``,
    'CONFIG.NO_SUCH_CONTEXT',
  );
}

export function findContext(config: SkiffConfig, name: string): Context | undefined {
  return config.contexts.find((c) => c.name === name);
}

/**
 * Context selection order: the --context flag, then the current-context setting,
 * then the context named `local`. A name given but not defined is a configuration
 * error; with no name and no `local`, there is no active context.
 */
export function selectContext(config: SkiffConfig, flag?: string): Context | undefined {
  if (flag) return findContext(config, flag) ?? throwError(notFound(flag, 'from --context'));
  if (config.currentContext) {
    return (
      findContext(config, config.currentContext) ?? throwError(notFound(config.currentContext, 'the current-context'))
    );
  }
  return findContext(config, DEFAULT_CONTEXT);
}

function throwError(err: Error): never {
  throw err;
}

export function assertContextName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$/.test(name)) {
    throw new ConfigurationError(
      `context name ${JSON.stringify(name)} is not valid: use up to 63 letters, digits, '.', '_', '@' or '-'`,
      'CONFIG.BAD_CONTEXT_NAME',
    );
  }
  return name;
}

function normalized(context: Context): Context {
  const out: { -readonly [K in keyof Context]: Context[K] } = { name: context.name, domain: context.domain };
  if (context.identityProviderUrl)
    out.identityProviderUrl = checkServiceUrl(context.identityProviderUrl, 'the identity-provider URL');
  if (context.gitHostUrl) out.gitHostUrl = checkServiceUrl(context.gitHostUrl, 'the git-host URL');
  if (context.boardsUrl) out.boardsUrl = checkServiceUrl(context.boardsUrl, 'the boards URL');
  // `file` is the default: stored only when it is not.
  if (context.tokenStore === 'keyring') out.tokenStore = 'keyring';
  if (context.par === 'always') out.par = 'always';
  if (context.dpop === 'always') out.dpop = 'always';
  return out;
}

/** `set-context <name>`: creates the context or changes the given fields of it. */
export function setContext(config: SkiffConfig, name: string, changes: ContextChanges): SkiffConfig {
  assertContextName(name);
  const existing = findContext(config, name) ?? { name, domain: '' };
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const updated = normalized({ ...existing, ...given, name });
  const contexts = findContext(config, name)
    ? config.contexts.map((c) => (c.name === name ? updated : c))
    : [...config.contexts, updated];
  return { ...config, contexts };
}

/**
 * `config set --host <domain>` and `--token-store`: change the context in use (the
 * current-context, else `local`, created when missing) and make it current.
 */
export function setInUse(config: SkiffConfig, changes: ContextChanges): { config: SkiffConfig; context: string } {
  const name =
    config.currentContext && findContext(config, config.currentContext) ? config.currentContext : DEFAULT_CONTEXT;
  const changed = setContext(config, name, changes);
  return { config: { ...changed, currentContext: name }, context: name };
}

/** `config set --host <domain>`: sets the domain of the context in use (see setInUse). */
export function setHost(config: SkiffConfig, domain: string): { config: SkiffConfig; context: string } {
  return setInUse(config, { domain });
}

export function useContext(config: SkiffConfig, name: string): SkiffConfig {
  if (!findContext(config, name)) throw notFound(name, 'for use-context');
  return { ...config, currentContext: name };
}

export function deleteContext(config: SkiffConfig, name: string): SkiffConfig {
  if (!findContext(config, name)) throw notFound(name, 'for delete-context');
  const contexts = config.contexts.filter((c) => c.name !== name);
  return config.currentContext === name ? { contexts } : { ...config, contexts };
}

/**
 * The overrides of the active context apply to its own domain only: a --domain
 * naming another domain (or a cached record of another domain) gets that domain's
 * standard URLs, so no token is sent to a host configured for something else.
 */
export function overridesFor(domain: string, context: Context | undefined): UrlOverrides {
  if (context === undefined || (context.domain !== '' && context.domain !== domain)) return {};
  return context;
}
