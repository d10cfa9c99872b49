import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The shared test vectors (test/vectors/README.md): one `.vec` file per vector, lines of
 * `<keyword> <rest>`, `#` comments. The C tests read the same files (test/native/units/vectors.h),
 * so the C and TypeScript sides of a protocol cannot drift apart.
 */
export interface Vector {
  readonly name: string;
  readonly input: Buffer;
  /** The expectation lines, in order, as written (not `bytes`, not comments). */
  readonly lines: ReadonlyArray<{ key: string; rest: string }>;
}

export const VECTORS_DIR = resolve(__dirname, '../vectors');

/** A vector's byte tokens: hex digits, or `<count>x<hh>` for count bytes of value hh. */
export function vectorBytes(text: string): Buffer {
  return Buffer.concat(
    text
      .split(' ')
      .filter((token) => token !== '')
      .map((token) => {
        const fill = /^(\d+)x([0-9a-fA-F]{2})$/.exec(token);
        if (fill !== null) return Buffer.alloc(Number(fill[1]), parseInt(fill[2], 16));
        if (!/^([0-9a-fA-F]{2})*$/.test(token)) throw new Error(`not vector bytes: ${token}`);
        return Buffer.from(token, 'hex');
      }),
  );
}

/** Every vector of `protocol` (a directory of test/vectors), in name order. */
export function readVectors(protocol: string): Vector[] {
  const dir = join(VECTORS_DIR, protocol);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.vec'))
    .sort()
    .map((file) => {
      const input: Buffer[] = [];
      const lines: Array<{ key: string; rest: string }> = [];
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        if (line === '' || line.startsWith('#')) continue;
        const space = line.indexOf(' ');
        const key = space < 0 ? line : line.slice(0, space);
        const rest = space < 0 ? '' : line.slice(space + 1);
        if (key === 'bytes') input.push(vectorBytes(rest));
        else lines.push({ key, rest });
      }
      return { name: `${protocol}/${file}`, input: Buffer.concat(input), lines };
    });
}

/** Where to cut a vector's input in two: everywhere in a small one, around the first header and the middle of a large one. */
export function cuts(length: number): number[] {
  if (length < 4096) return Array.from({ length: length + 1 }, (_, i) => i);
  return [1, 9, 10, 11, length >> 1, length - 1];
}
