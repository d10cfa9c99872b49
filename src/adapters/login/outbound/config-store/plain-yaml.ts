/**
 * A reader for the plain block YAML that `skiff config` writes (and most people
 * write by hand): nested mappings, sequences of mappings, unquoted scalars that
 * YAML 1.2's core schema reads as strings. For anything else it returns undefined
 * and the caller parses with the full YAML library, so what it returns always
 * equals that library's result (test/adapters/login/outbound/config-store/plain-yaml.test.ts holds it to
 * that). It exists for start-up time: the YAML library is most of what
 * `auth token` spends on reading config.yaml (docs/performance.md, "The login flow").
 */
export function parsePlainYaml(text: string): Record<string, unknown> | undefined {
  if (text.includes('\r') || text.includes('\t')) return undefined;
  const lines = text
    .split('\n')
    .map((line) => ({ indent: line.length - line.trimStart().length, body: line.trimStart() }))
    .filter(({ body }) => body !== '' && !body.startsWith('#'));
  if (lines.length === 0 || lines[0].indent !== 0) return undefined;
  const reader = new Reader(lines);
  const doc = reader.block(0);
  return reader.done() && isMapping(doc) ? doc : undefined;
}

/** A string for the core schema: starts with a letter, no quote, flow, comment, anchor or tag character. */
const STRING = /^[A-Za-z][A-Za-z0-9._/:@%+=~-]*$/;
/** Plain words the core schema reads as booleans or null. */
const NOT_STRINGS = /^(true|false|null)$/i;
const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

type Line = { indent: number; body: string };
type Value = string | null | Record<string, unknown> | unknown[];

class Unsupported extends Error {}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a: b:` would be a nested mapping to YAML: a colon may not end a plain string here. */
function scalar(text: string): string {
  if (!STRING.test(text) || NOT_STRINGS.test(text) || text.endsWith(':')) throw new Unsupported();
  return text;
}

class Reader {
  private next = 0;

  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.next === this.lines.length;
  }

  /** The block whose lines start at `indent`: a sequence when its first line is an item, else a mapping. */
  block(indent: number): Value | undefined {
    try {
      return this.lines[this.next].body.startsWith('- ') ? this.sequence(indent) : this.mapping(indent, {});
    } catch (err) {
      if (err instanceof Unsupported) return undefined;
      throw err;
    }
  }

  private mapping(indent: number, into: Record<string, unknown>): Record<string, unknown> {
    while (this.next < this.lines.length && this.lines[this.next].indent === indent) {
      const { body } = this.lines[this.next];
      const colon = body.indexOf(':');
      const key = body.slice(0, colon);
      if (colon < 0 || !KEY.test(key) || NOT_STRINGS.test(key) || Object.hasOwn(into, key)) throw new Unsupported();
      this.next += 1;
      if (colon === body.length - 1) {
        into[key] = this.child(indent);
      } else {
        if (body[colon + 1] !== ' ') throw new Unsupported();
        into[key] = scalar(body.slice(colon + 2));
      }
    }
    this.endOfBlock(indent);
    return into;
  }

  /** Items `- key: value`, each a mapping whose further keys sit two columns in. */
  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    while (this.next < this.lines.length && this.lines[this.next].indent === indent) {
      const line = this.lines[this.next];
      if (!line.body.startsWith('- ')) throw new Unsupported();
      this.lines[this.next] = { indent: indent + 2, body: line.body.slice(2) };
      if (this.lines[this.next].body.startsWith(' ')) throw new Unsupported();
      items.push(this.mapping(indent + 2, {}));
    }
    this.endOfBlock(indent);
    return items;
  }

  /** The value of `key:`: a deeper block, or null when none follows. */
  private child(indent: number): Value {
    const following = this.lines[this.next];
    if (following === undefined || following.indent <= indent) return null;
    const value = this.block(following.indent);
    if (value === undefined) throw new Unsupported();
    return value;
  }

  /** A line deeper than the block it follows, with nothing opening it, is not ours to judge. */
  private endOfBlock(indent: number): void {
    const following = this.lines[this.next];
    if (following !== undefined && following.indent > indent) throw new Unsupported();
  }
}
