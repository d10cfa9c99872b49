import { InvalidArgumentError } from '../../../src/domain/shared/errors';
import { assertValidId, MAX_ID_LENGTH } from '../../../src/domain/shim/task-id';

describe('task and exec ids (containerd identifier rule)', () => {
  it.each(['a', 'web1', 'my-task', 'a.b_c-d', 'A1.B2', 'x'.repeat(MAX_ID_LENGTH)])('accepts %s', (id) => {
    expect(() => assertValidId(id, 'task id')).not.toThrow();
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(MAX_ID_LENGTH + 1)],
    ['a slash', 'a/b'],
    ['dot-dot', '..'],
    ['a path escape', '../etc'],
    ['a NUL', 'a\0b'],
    ['a newline', 'a\nb'],
    ['a tab', 'a\tb'],
    ['a leading separator', '-a'],
    ['a trailing separator', 'a.'],
    ['a doubled separator', 'a..b'],
    ['a space', 'a b'],
    ['non-ASCII', 'tâche'],
  ])('refuses %s', (_why, id) => {
    expect(() => assertValidId(id, 'task id')).toThrow(InvalidArgumentError);
  });

  it('names the id in the message', () => {
    expect(() => assertValidId('a/b', 'exec id')).toThrow('exec id "a/b" is not valid');
  });
});
