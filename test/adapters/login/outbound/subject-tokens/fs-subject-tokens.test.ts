import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsSubjectTokens } from '../../../../../src/adapters/login/outbound/subject-tokens/fs-subject-tokens';
import { FakeSubjectTokens } from '../../../../../src/adapters/fakes/login/fake-subject-tokens';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { subjectTokensContract } from '../../../../contract/login/subject-tokens.contract';

subjectTokensContract('FakeSubjectTokens', () => {
  const fake = new FakeSubjectTokens();
  return {
    tokens: fake,
    put: (name, text) => {
      const path = fake.absolute(name);
      fake.files.set(path, text);
      return path;
    },
    cleanup: () => undefined,
  };
});

subjectTokensContract('FsSubjectTokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-subject-'));
  return {
    tokens: new FsSubjectTokens(() => dir),
    put: (name, text) => (writeFileSync(join(dir, name), text), join(dir, name)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('FsSubjectTokens', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-subject-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('follows a link (a projected service account token is one)', async () => {
    writeFileSync(join(dir, 'token'), 'a.b.c\n');
    symlinkSync(join(dir, 'token'), join(dir, 'link'));
    await expect(new FsSubjectTokens(() => dir).read('link')).resolves.toBe('a.b.c');
  });

  it('a directory: a configuration error naming the file', async () => {
    mkdirSync(join(dir, 'x'));
    const err = await new FsSubjectTokens().read(join(dir, 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toBe(`the subject token file ${join(dir, 'x')} is not a regular file`);
  });
});
