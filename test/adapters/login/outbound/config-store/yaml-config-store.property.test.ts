import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { YamlConfigStore } from '../../../../../src/adapters/login/outbound/config-store/yaml-config-store';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { PROPERTY_BUDGET } from '../../../../support/property';

/**
 * config.yaml is the user's file, hand-edited or written by a dotfile manager: any text,
 * any YAML document. Loading it gives a typed configuration or one configuration error on
 * one line naming the file; an alias bomb is cut short by the YAML library's alias limit,
 * never a hang.
 */

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skiff-config-prop-'));
  path = join(dir, 'config.yaml');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIELDS = {
  domain: 'domain',
  'auth-url': 'identityProviderUrl',
  'git-url': 'gitHostUrl',
  'boards-url': 'boardsUrl',
  'token-store': 'tokenStore',
};

async function load(text: string): Promise<{ ok: unknown } | { err: unknown }> {
  writeFileSync(path, text);
  try {
    return { ok: await new YamlConfigStore(path).load() };
  } catch (err) {
    return { err };
  }
}

function expectFileError(err: unknown): void {
  if (!(err instanceof ConfigurationError)) throw err;
  expect(err.code).toBe('CONFIG.FILE');
  expect(err.message).toContain(`configuration file ${path} `);
  // One line, nothing a terminal acts on, whatever the file held.
  // eslint-disable-next-line no-control-regex -- control characters are what must not appear
  expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
}

/** A typed configuration: contexts with a non-empty name, string fields only, nothing else. */
function expectTyped(config: unknown): void {
  const { currentContext, contexts, ...rest } = config as Record<string, unknown>;
  expect(rest).toEqual({});
  if (currentContext !== undefined) expect(typeof currentContext === 'string' && currentContext !== '').toBe(true);
  expect(Array.isArray(contexts)).toBe(true);
  for (const context of contexts as Array<Record<string, unknown>>) {
    expect(typeof context.name === 'string' && context.name !== '').toBe(true);
    expect(typeof context.domain).toBe('string');
    for (const [key, value] of Object.entries(context)) {
      expect(['name', ...Object.values(FIELDS)]).toContain(key);
      expect(typeof value).toBe('string');
    }
  }
}

/**
 * What a document means by docs/login-contract.md ("Contexts"), read independently: the
 * configuration, or undefined when it must be refused.
 */
function meaning(doc: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (doc === null || doc === undefined) return { contexts: [] };
  if (!isMap(doc)) return undefined;
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') return undefined;
  const list = doc.contexts ?? [];
  if (!Array.isArray(list)) return undefined;
  const contexts = [];
  for (const entry of list) {
    if (!isMap(entry) || typeof entry.name !== 'string' || entry.name === '') return undefined;
    const fields = entry.context ?? {};
    if (!isMap(fields)) return undefined;
    const context: Record<string, string> = { name: entry.name, domain: '' };
    for (const [key, field] of Object.entries(FIELDS)) {
      const value = fields[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') return undefined;
      context[field] = value;
    }
    if (context.tokenStore !== undefined && !['file', 'keyring'].includes(context.tokenStore)) return undefined;
    contexts.push(context);
  }
  return current ? { currentContext: current, contexts } : { contexts };
}

const unit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...[':', '-', ' ', '  ', '\n', '\r', '\t', '#', '&a', '*a', '!', '|', '>', '[', ']', '{', '}', ',', '"', "'"],
      ...['? ', '---', '...', '%YAML 1.1', '<<', '\u2028', '\u0085', '\x1b', '\0', '\ufeff'],
    ),
  },
);
const word = fc.oneof(
  fc.constantFrom(
    'prod',
    'example.com',
    'https://auth.example.com',
    '',
    'true',
    '~',
    '12',
    'a\nb',
    '\x1b[2J',
    'file',
    'keyring',
  ),
  fc.string({ unit, maxLength: 20 }),
);
const scalar = fc.oneof(
  word,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const value = fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 }));
const contextFields = fc.dictionary(
  fc.oneof(fc.constantFrom(...Object.keys(FIELDS)), word),
  fc.oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: value }),
  { maxKeys: 5 },
);
const entry = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      { name: fc.oneof(word, value), context: fc.oneof(contextFields, value) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: value },
);
/** Documents of the file's shape, every part of which may be of another shape. */
const document = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        'current-context': fc.oneof(word, value),
        contexts: fc.oneof(
          { weight: 4, arbitrary: fc.array(entry, { maxLength: 4 }) },
          { weight: 1, arbitrary: value },
        ),
        other: value,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: value },
);

describe('YamlConfigStore.load on generated files', () => {
  it('any document: the configuration it means, or one error naming the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.constantFrom<object>({}, { indent: 4 }, { defaultStringType: 'QUOTE_DOUBLE' }, { collectionStyle: 'flow' }),
        async (doc, options) => {
          const text = stringify(doc, options);
          const outcome = await load(text);
          const expected = meaning(JSON.parse(JSON.stringify(doc) ?? 'null'));
          if ('err' in outcome) {
            expectFileError(outcome.err);
            expect({ text, expected }).toEqual({ text, expected: undefined });
          } else {
            expectTyped(outcome.ok);
            expect({ text, config: outcome.ok }).toEqual({ text, config: expected });
          }
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('any text: a typed configuration, or one error naming the file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 200 }), async (text) => {
        const outcome = await load(text);
        if ('err' in outcome) expectFileError(outcome.err);
        else expectTyped(outcome.ok);
      }),
      PROPERTY_BUDGET,
    );
  });

  it('an alias bomb of any width and depth, a deep nesting: refused or read within a second, never a hang', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('flow', 'block', 'nested'),
        async (width, depth, style) => {
          let text: string;
          if (style === 'nested') {
            text = `contexts: ${'['.repeat(width * depth * 500)}${']'.repeat(width * depth * 500)}\n`;
          } else {
            const lines = ['a0: &a0 [lol, lol]'];
            for (let i = 1; i <= depth; i++) {
              const refs = Array.from({ length: width }, () => `*a${i - 1}`);
              lines.push(
                style === 'flow'
                  ? `a${i}: &a${i} [${refs.join(', ')}]`
                  : `a${i}: &a${i}\n${refs.map((r) => `  - ${r}`).join('\n')}`,
              );
            }
            lines.push(`contexts: *a${depth}`);
            text = `${lines.join('\n')}\n`;
          }
          const started = process.hrtime.bigint();
          const outcome = await load(text);
          expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
          if ('err' in outcome) expectFileError(outcome.err);
          else expectTyped(outcome.ok);
        },
      ),
      { ...PROPERTY_BUDGET, numRuns: Math.min(PROPERTY_BUDGET.numRuns ?? 100, 100) },
    );
  });
});
