import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsClientSecrets } from '../../../../../src/adapters/login/outbound/client-secrets/fs-client-secrets';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { FakeClientSecrets } from '../../../../../src/adapters/fakes/login/fake-client-secrets';
import { clientSecretsContract } from '../../../../contract/login/client-secrets.contract';
import { mkfifo } from '../../../../e2e/support/fifo';

clientSecretsContract('FakeClientSecrets', (env) => {
  const fake = new FakeClientSecrets();
  fake.env = env;
  return {
    secrets: fake,
    put: (name, text) => {
      const path = fake.absolute(name);
      fake.files.set(path, text);
      return path;
    },
    cleanup: () => undefined,
  };
});

clientSecretsContract('FsClientSecrets', (env) => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-secret-'));
  return {
    secrets: new FsClientSecrets(env === undefined ? {} : { SKIFF_CLIENT_SECRET: env }, () => dir),
    put: (name, text) => (writeFileSync(join(dir, name), text), join(dir, name)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});

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
    ['a directory', (d: string) => (mkdirSync(join(d, 'x')), join(d, 'x')), /is not a regular file$/],
    [
      'too large',
      (d: string) => (writeFileSync(join(d, 'big'), 'x'.repeat(70_000)), join(d, 'big')),
      /is larger than 65536 bytes$/,
    ],
  ])('%s: a configuration error naming the file', async (_, make, problem) => {
    const path = make(dir);
    const err = await new FsClientSecrets({}).read(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(problem);
  });

  it('a FIFO: refused at once, never waiting for a writer', async () => {
    const fifo = mkfifo(join(dir, 'fifo'));
    // A writer that comes only after 3 s, so that a blocking open ends instead of hanging the suite.
    const late = spawn('sh', ['-c', `sleep 3; exec 3>'${fifo}'`], { stdio: 'ignore' });
    try {
      const started = Date.now();
      const err = await new FsClientSecrets({}).read(fifo).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as Error).message).toBe(`the client secret file ${fifo} is not a regular file`);
    } finally {
      late.kill('SIGKILL');
    }
  });
});
