import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsClientSecrets } from '../../../../../src/adapters/login/outbound/client-secrets/fs-client-secrets';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';

describe('FsClientSecrets', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-secret-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file trimmed, through a link (a mounted Kubernetes secret), relative to the working directory', async () => {
    writeFileSync(join(dir, 'secret'), '  s3cret\n');
    symlinkSync(join(dir, 'secret'), join(dir, 'link'));
    const secrets = new FsClientSecrets({}, () => dir);
    await expect(secrets.read(join(dir, 'secret'))).resolves.toBe('s3cret');
    await expect(secrets.read('link')).resolves.toBe('s3cret');
    expect(secrets.absolute('link')).toBe(join(dir, 'link'));
  });

  it('without a file: SKIFF_CLIENT_SECRET', async () => {
    await expect(new FsClientSecrets({ SKIFF_CLIENT_SECRET: 'e\n' }).read(undefined)).resolves.toBe('e');
    await expect(new FsClientSecrets({}).read(undefined)).rejects.toThrow(
      'no client secret: pass --client-secret-file <file> or set SKIFF_CLIENT_SECRET',
    );
  });

  it.each([
    ['missing', (d: string) => join(d, 'none'), /does not exist$/],
    ['empty', (d: string) => (writeFileSync(join(d, 'e'), '\n'), join(d, 'e')), /is empty$/],
    ['a directory', (d: string) => (mkdirSync(join(d, 'x')), join(d, 'x')), /not a regular file|directory/],
    ['too large', (d: string) => (writeFileSync(join(d, 'big'), 'x'.repeat(70_000)), join(d, 'big')), /larger than/],
  ])('%s: a configuration error naming the file', async (_, make, problem) => {
    const path = make(dir);
    const err = await new FsClientSecrets({}).read(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(problem);
  });
});
