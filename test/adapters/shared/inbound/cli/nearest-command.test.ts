import fc from 'fast-check';
import { editDistance, nearestCommand } from '../../../../../src/adapters/shared/inbound/cli/nearest-command';
import { PROPERTY_BUDGET } from '../../../../support/property';

const COMMANDS = [
  'auth',
  'auth:token',
  'auth:login',
  'task',
  'task:state',
  'task:start',
  'task:ls',
  'config',
  'help',
  'run',
];

describe('nearestCommand: a suggestion only when one is near', () => {
  it.each([
    ['tsk', 'task'],
    ['task:stat', 'task:state'],
    ['auth:tokne', 'auth:token'],
    ['hepl', 'help'],
    ['cofnig', 'config'],
  ])('%s -> %s', (typed, nearest) => {
    expect(nearestCommand(typed, COMMANDS)).toBe(nearest);
  });

  it.each(['frobnicate', 'task:xyz', 'zz', 'deploy'])('%s: nothing is near', (typed) => {
    expect(nearestCommand(typed, COMMANDS)).toBeUndefined();
  });

  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('hepl', 'help')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('nearestCommand on generated input', () => {
  const word = fc.stringMatching(/^[a-z-]{0,12}$/);
  const id = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(':'));

  it('the first candidate at the least distance within a third of the last word, as a full scan finds it', () => {
    fc.assert(
      fc.property(
        fc.oneof(id, fc.string({ unit: 'binary', maxLength: 30 })),
        fc.array(id, { maxLength: 12 }),
        (typed, candidates) => {
          const words = typed.split(':');
          const allowed = Math.max(1, Math.floor(words[words.length - 1].length / 3));
          let expected: string | undefined;
          let least = allowed + 1;
          for (const c of candidates) {
            const d = editDistance(typed, c);
            if (d < least) [expected, least] = [c, d];
          }
          expect(nearestCommand(typed, candidates)).toBe(expected);
        },
      ),
      PROPERTY_BUDGET,
    );
  });

  it('editDistance is a distance: zero only to itself, symmetric, at least the difference of lengths', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (a, b) => {
        const d = editDistance(a, b);
        expect(d === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(d);
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
      PROPERTY_BUDGET,
    );
  });

  it('a very long word typed (a script passing a file as the command) is answered at once', () => {
    const candidates = Array.from({ length: 80 }, (_, i) => `topic:command-${i}`);
    const started = Date.now();
    expect(nearestCommand('x'.repeat(100_000), candidates)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
