import fc from 'fast-check';
import {
  criuStdioConfig,
  parseStdioRecord,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/criu-stdio';
import { PROPERTY_BUDGET } from '../../../../../support/property';

/**
 * skiff-stdio.json comes with a checkpoint's images, from an archive anyone may have made, and
 * its keys go into criu's configuration at the restore (criu-stdio.ts): any text gives entries
 * of a stdio descriptor and a key of criu's form, never a throw, and the configuration made of
 * them is one line per entry, so no text of the record can add an option of its own to criu's.
 */
const entry = fc.record({ fd: fc.jsonValue(), key: fc.jsonValue() }, { requiredKeys: [] });
const keyLike = fc
  .tuple(fc.integer({ min: -1, max: 3 }), fc.string())
  .map(([fd, tail]) => ({ fd, key: `file[1e:10]${tail}` }));
const text = fc.oneof(
  fc.string(),
  fc.json(),
  fc.array(fc.oneof(entry, keyLike, fc.jsonValue())).map((entries) => JSON.stringify(entries)),
);

describe('stdio records read from generated text', () => {
  it('are entries of descriptors 0-2 with keys of criu form, one configuration line each', () => {
    fc.assert(
      fc.property(text, (input) => {
        const entries = parseStdioRecord(input);
        for (const e of entries) {
          expect([0, 1, 2]).toContain(e.fd);
          expect(e.key).toMatch(/^file\[[0-9a-f]+:[0-9a-f]+\]$/);
        }
        for (const phase of ['dump', 'restore'] as const) {
          const lines = criuStdioConfig(entries, phase).split('\n');
          expect(lines.pop()).toBe('');
          expect(lines).toHaveLength(entries.length);
        }
      }),
      PROPERTY_BUDGET,
    );
  });

  it('keeps what a dump writes', () => {
    const entries = [
      { fd: 0, key: 'file[1e:10]' },
      { fd: 1, key: 'file[2a:ff01]' },
    ];
    expect(parseStdioRecord(JSON.stringify(entries))).toEqual(entries);
  });
});
