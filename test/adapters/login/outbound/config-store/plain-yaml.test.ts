import { parse, stringify } from 'yaml';
import { parsePlainYaml } from '../../../../../src/adapters/login/outbound/config-store/plain-yaml';

/** What the YAML library makes of `text`, or 'error'. */
function library(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return 'error';
  }
}

/** A repeatable pseudo-random sequence (a failing case can be replayed). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const WORDS = ['local', 'dev', 'prod', 'example.com', 'a-b_c.d', 'x@y', 'localhost:8080', 'NaN', 'Infinity', 'e5'];
const URLS = ['http://127.0.0.1:5556', 'https://auth.example.com/realms/x', 'https://git.example.com/'];
const AWKWARD = [
  '',
  'true',
  'False',
  'NULL',
  '~',
  '1.5',
  '0x1F',
  '12',
  '-x',
  'a b',
  'a: b',
  'a #b',
  "'q'",
  '"q"',
  'b:',
  '[x]',
  '&a',
  '*a',
  '!t x',
  'é',
  '10.0.0.1',
  'yes',
];

function contextsFile(next: () => number, awkward: boolean): Record<string, unknown> {
  const pick = (list: readonly string[]) => list[Math.floor(next() * list.length)];
  const value = () => (awkward && next() < 0.2 ? pick(AWKWARD) : pick(WORDS));
  const contexts = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
    const context: Record<string, string> = { domain: value() };
    if (next() < 0.5) context['auth-url'] = awkward && next() < 0.2 ? pick(AWKWARD) : pick(URLS);
    if (next() < 0.3) context['git-url'] = pick(URLS);
    return { name: value(), context };
  });
  return next() < 0.7 ? { 'current-context': value(), contexts } : { contexts };
}

describe('the plain YAML reader of config.yaml', () => {
  it('reads what `skiff config` writes exactly as the YAML library does (1,000 generated files)', () => {
    const next = random(1);
    for (let i = 0; i < 1000; i++) {
      const text = stringify(contextsFile(next, false));
      expect({ text, doc: parsePlainYaml(text) }).toEqual({ text, doc: library(text) });
    }
  });

  it('never disagrees with the library: it reads a file the same way or leaves it to the library (3,000 files)', () => {
    const next = random(2);
    let declined = 0;
    for (let i = 0; i < 3000; i++) {
      const text = stringify(contextsFile(next, true));
      const doc = parsePlainYaml(text);
      if (doc === undefined) declined += 1;
      else expect({ text, doc }).toEqual({ text, doc: library(text) });
    }
    expect(declined).toBeGreaterThan(100);
  });

  it('never disagrees on values written by hand without quotes, whatever they are', () => {
    for (const value of [...WORDS, ...URLS, ...AWKWARD]) {
      for (const text of [
        `current-context: ${value}\n`,
        `contexts:\n  - name: ${value}\n    context:\n      domain: ${value}\n`,
      ]) {
        const doc = parsePlainYaml(text);
        if (doc !== undefined) expect({ text, doc }).toEqual({ text, doc: library(text) });
      }
    }
  });

  it('reads hand-written files with comments and blank lines like the library', () => {
    const texts = [
      '# contexts\ncurrent-context: prod\n\ncontexts:\n  # the main one\n  - name: prod\n    context:\n      domain: example.com\n',
      'contexts:\n  - name: a\n    context:\n  - name: b\n',
      'current-context: a\n',
      'contexts:\n    - name: deep\n      context:\n          domain: example.com\n',
    ];
    for (const text of texts) expect({ text, doc: parsePlainYaml(text) }).toEqual({ text, doc: library(text) });
  });

  it.each([
    ['a quoted value', 'current-context: "prod"\n'],
    ['a flow sequence', 'contexts: []\n'],
    ['an inline comment', 'current-context: prod # the main one\n'],
    ['a boolean', 'current-context: true\n'],
    ['a number', 'current-context: 12\n'],
    ['a null word', 'current-context: Null\n'],
    ['an empty value with a trailing space', 'current-context: \n'],
    ['a duplicate key (the library reports it)', 'current-context: a\ncurrent-context: b\n'],
    ['a sequence at the indentation of its key', 'contexts:\n- name: a\n'],
    ['a plain scalar continued on the next line', 'current-context: a\n  b\n'],
    ['an anchor and an alias', 'a: &x b\nc: *x\n'],
    ['a tab', 'contexts:\n\t- name: a\n'],
    ['CRLF line ends', 'current-context: a\r\n'],
    ['a document marker', '---\ncurrent-context: a\n'],
    ['a block scalar', 'current-context: |\n  a\n'],
    ['a key ending the value', 'current-context: a:\n'],
    ['a top-level sequence', '- name: a\n'],
    ['nothing but comments', '# empty\n'],
  ])('leaves %s to the library', (_what, text) => {
    expect(parsePlainYaml(text)).toBeUndefined();
  });
});
