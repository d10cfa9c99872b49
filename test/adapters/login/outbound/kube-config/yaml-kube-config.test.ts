import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { YamlKubeConfig } from '../../../../../src/adapters/login/outbound/kube-config/yaml-kube-config';
import { kubeUser } from '../../../../../src/domain/login/kube/kube-user';
import { ConfigurationError } from '../../../../../src/domain/shared/errors';
import { kubeConfigFiles } from '../../../../../src/infrastructure/login/kube-paths';

const KUBECTL_STYLE = `apiVersion: v1
clusters:
- cluster:
    server: https://127.0.0.1:6443
  name: c1
# the team's cluster, keep
contexts:
- context:
    cluster: c1
    user: other
  name: ctx
current-context: ctx
kind: Config
preferences: {}
users:
- name: other
  user:
    token: "abc"
`;

describe('the kubeconfig (YamlKubeConfig)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'skiff-kubeconfig-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const user = kubeUser('example.com', '/usr/bin/skiff', ['--domain', 'example.com']);

  it('adds the user after the others, keeping comments, quoting, order and mode', async () => {
    const file = join(dir, 'config');
    writeFileSync(file, KUBECTL_STYLE, { mode: 0o640 });
    await expect(new YamlKubeConfig([file]).upsertUser(user)).resolves.toEqual({ path: file, change: 'added' });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(
      `${KUBECTL_STYLE}- name: skiff-example.com
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /usr/bin/skiff
      args:
      - auth
      - kube-credential
      - --domain
      - example.com
      interactiveMode: Never
      provideClusterInfo: false
`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('updates the entry in place, and leaves an unchanged one unwritten', async () => {
    const file = join(dir, 'config');
    writeFileSync(file, KUBECTL_STYLE);
    const config = new YamlKubeConfig([file]);
    await config.upsertUser(user);
    const moved = kubeUser('example.com', '/opt/skiff/bin/run.js', ['--context', 'prod']);
    await expect(config.upsertUser(moved)).resolves.toMatchObject({ change: 'updated' });
    const text = readFileSync(file, 'utf8');
    expect(text.match(/name: skiff-example\.com/g)).toHaveLength(1);
    expect(text).toContain('command: /opt/skiff/bin/run.js');
    const before = statSync(file).mtimeMs;
    await expect(config.upsertUser(moved)).resolves.toMatchObject({ change: 'unchanged' });
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('creates a missing file 0600; with a $KUBECONFIG list, changes the file holding the user, else the first', async () => {
    const [a, b] = [join(dir, 'a'), join(dir, 'sub', 'b')];
    await new YamlKubeConfig([b, a]).upsertUser(user);
    expect(statSync(b).mode & 0o777).toBe(0o600);
    expect(readFileSync(b, 'utf8')).toMatch(/^apiVersion: v1\nkind: Config\nusers:\n- name: skiff-example.com/);
    writeFileSync(a, KUBECTL_STYLE);
    await expect(new YamlKubeConfig([a, b]).upsertUser(user)).resolves.toEqual({ path: b, change: 'unchanged' });
    expect(readFileSync(a, 'utf8')).toBe(KUBECTL_STYLE);
    expect(kubeConfigFiles({ KUBECONFIG: `${a}::${b}`, HOME: '/h' })).toEqual([a, b]);
    expect(kubeConfigFiles({ HOME: '/h' })).toEqual(['/h/.kube/config']);
  });

  it.each([
    ['not YAML', 'users: [\n', /is not valid YAML/],
    ['not a mapping', '- a\n- b\n', /does not hold a mapping/],
    ['users not a list', 'users: 3\n', /has a `users` that is not a list/],
  ])('refuses a kubeconfig that is %s, naming it and --print', async (_, text, message) => {
    const file = join(dir, 'config');
    writeFileSync(file, text);
    const err = await new YamlKubeConfig([file]).upsertUser(user).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('--print');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('reads through a symbolic link but never writes through one', async () => {
    const real = join(dir, 'real');
    const link = join(dir, 'config');
    writeFileSync(real, KUBECTL_STYLE);
    symlinkSync(real, link);
    const err = await new YamlKubeConfig([link]).upsertUser(user).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/is a symbolic link, which skiff never writes through.*--print/);
    expect(readFileSync(real, 'utf8')).toBe(KUBECTL_STYLE);
  });
});
