import { editDistance, nearestCommand } from '../../../../../src/adapters/shared/inbound/cli/nearest-command';

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
