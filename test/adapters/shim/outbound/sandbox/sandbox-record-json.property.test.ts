import fc from 'fast-check';
import {
  sandboxRecordFromJson,
  sandboxRecordToJson,
} from '../../../../../src/adapters/shim/outbound/sandbox/sandbox-record-json';
import { aSandboxRecord } from '../../../../contract/sandbox-journal.contract';
import { PROPERTY_BUDGET } from '../../../../support/property';

/**
 * A sandbox record is read back from a file in containerd's bundle (bundle-sandbox-journal.ts),
 * which a crash may have cut or anything may have written: any text is a record or one Error
 * naming what is wrong, never a TypeError from a field of the wrong kind.
 */
const sample = sandboxRecordToJson(aSandboxRecord('p1', '/b', { exit: { exitStatus: 137, exitedAt: new Date(5) } }));

const text = fc.oneof(
  fc.string(),
  fc.json(),
  // The sample with one field replaced by any JSON value, or cut short.
  fc
    .tuple(fc.constantFrom(...Object.keys(JSON.parse(sample) as object)), fc.jsonValue())
    .map(([field, value]) => JSON.stringify({ ...(JSON.parse(sample) as object), [field]: value })),
  fc.nat({ max: sample.length }).map((cut) => sample.slice(0, cut)),
);

describe('sandbox records read from generated text', () => {
  it('a record, or an Error that names the field; never another failure', () => {
    fc.assert(
      fc.property(text, (input) => {
        try {
          const record = sandboxRecordFromJson(input);
          expect(typeof record.spec.id).toBe('string');
          expect(Number.isSafeInteger(record.pid)).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect(err).not.toBeInstanceOf(TypeError);
        }
      }),
      PROPERTY_BUDGET,
    );
  });

  it('reads back what it writes', () => {
    const record = aSandboxRecord('p1', '/b', { exit: { exitStatus: 137, exitedAt: new Date(5) } });
    const { bundle: _bundle, ...rest } = record;
    expect(sandboxRecordFromJson(sandboxRecordToJson(record))).toEqual(rest);
  });
});
