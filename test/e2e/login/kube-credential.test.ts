import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeApiStandIn } from '../support/kube-api-stand-in';
import { OidcServer } from '../support/oidc';
import { signInWithSso, useProvider } from '../support/sign-in';
import { CliHome, CliResult } from '../support/skiff-home';
import { viaOclif } from '../support/via-oclif';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const execInfo = (apiVersion: string) =>
  JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { interactive: false } });

let oidc: OidcServer;
let api: KubeApiStandIn;
let home: CliHome;
let kubeconfig: string;

/** The machine's kubectl with this home's kubeconfig. */
function kubectl(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { env: { ...home.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const cacheFile = () => home.cacheFile('e2e.test');
const cache = () => JSON.parse(readFileSync(cacheFile(), 'utf8')) as Record<string, string>;
const rewriteCache = (fields: Record<string, string>) =>
  writeFileSync(cacheFile(), JSON.stringify({ ...cache(), ...fields }, null, 2), { mode: 0o600 });

/** Points skiff's kubeconfig user at v1beta1 of the protocol. */
function useV1beta1(): void {
  const text = readFileSync(kubeconfig, 'utf8');
  writeFileSync(kubeconfig, text.replace(`apiVersion: ${V1}\n`, `apiVersion: ${V1BETA1}\n`));
}

beforeAll(async () => {
  oidc = await OidcServer.start();
  api = await KubeApiStandIn.start(oidc.issuer);
  home = new CliHome();
  kubeconfig = join(home.dir, 'kubeconfig');
  await useProvider(home, oidc);
  expect((await signInWithSso(home)).code).toBe(0);
  for (const args of [
    [
      'config',
      'set-cluster',
      'e2e',
      '--server',
      api.url,
      '--certificate-authority',
      KubeApiStandIn.caFile,
      '--embed-certs',
    ],
    ['config', 'set-credentials', 'someone-else', '--token', 'not-ours'],
    ['config', 'set-context', 'e2e', '--cluster', 'e2e', '--user', 'someone-else'],
    ['config', 'use-context', 'e2e'],
  ]) {
    expect((await kubectl(args)).code).toBe(0);
  }
});

afterAll(async () => {
  await Promise.all([api?.close(), oidc?.stop()]);
  home?.remove();
});

describe('kubectl signs in through skiff (exec credential plugin)', () => {
  it('setup-kube --print shows the user entry and leaves the kubeconfig alone', async () => {
    const before = readFileSync(kubeconfig, 'utf8');
    const out = await home.run(['auth', 'setup-kube', '--print'], { env: { KUBECONFIG: kubeconfig } });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('- name: skiff-e2e.test');
    expect(out.stdout).toContain(`apiVersion: ${V1}`);
    expect(out.stdout).toMatch(/args:\n\s*- auth\n\s*- kube-credential\n\s*- --context\n\s*- e2e/);
    expect(readFileSync(kubeconfig, 'utf8')).toBe(before);
  });

  it('setup-kube adds the user and keeps everything else in the file as it was', async () => {
    const before = readFileSync(kubeconfig, 'utf8');
    const out = await home.run(['auth', 'setup-kube'], { env: { KUBECONFIG: kubeconfig } });
    expect(out).toMatchObject({ code: 0 });
    expect(out.stdout).toContain(`Added the user skiff-e2e.test in ${kubeconfig}.`);
    const after = readFileSync(kubeconfig, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/^- name: skiff-e2e\.test\n {2}user:\n {4}exec:\n/);
    const again = await home.run(['auth', 'setup-kube'], { env: { KUBECONFIG: kubeconfig } });
    expect(again.stdout).toContain('Kept the user skiff-e2e.test');
    expect(readFileSync(kubeconfig, 'utf8')).toBe(after);
    expect((await kubectl(['config', 'set-context', 'e2e', '--user', 'skiff-e2e.test'])).code).toBe(0);
    // kubectl before 1.22 (Debian's kubernetes-client) reads v1beta1 only: the entry is
    // pointed at it there, as such a user would (the plugin serves both).
    const version = JSON.parse((await kubectl(['version', '--client', '-o', 'json'])).stdout) as {
      clientVersion: { minor: string };
    };
    if (parseInt(version.clientVersion.minor, 10) < 22) useV1beta1();
  });

  it('kubectl reaches the API server with the token the provider issued', async () => {
    const out = await kubectl(['get', '--raw', '/whoami']);
    expect(out).toMatchObject({ code: 0 });
    expect(JSON.parse(out.stdout)).toEqual({ user: 'alice', path: '/whoami' });
    expect(api.tokens.at(-1)).toBe(cache().access_token);
  });

  it('an expiring token is refreshed at the provider during the run, and kubectl goes on', async () => {
    const old = cache().access_token;
    const refreshes = await oidc.grants('refresh_token');
    rewriteCache({ expires_at: new Date(Date.now() + 30_000).toISOString() });
    const out = await kubectl(['get', '--raw', '/whoami']);
    expect(out).toMatchObject({ code: 0 });
    expect(await oidc.grants('refresh_token')).toBe(refreshes + 1);
    expect(cache().access_token).not.toBe(old);
    expect(api.tokens.at(-1)).toBe(cache().access_token);
  });

  it('v1beta1 too, as kubectl asks for it', async () => {
    useV1beta1();
    expect(readFileSync(kubeconfig, 'utf8')).toContain(`apiVersion: ${V1BETA1}\n`);
    const out = await kubectl(['get', '--raw', '/whoami']);
    expect(out).toMatchObject({ code: 0 });
    const direct = await home.run(['auth', 'kube-credential'], { env: { KUBERNETES_EXEC_INFO: execInfo(V1BETA1) } });
    const credential = JSON.parse(direct.stdout);
    expect(credential).toMatchObject({
      kind: 'ExecCredential',
      apiVersion: V1BETA1,
      status: { token: cache().access_token },
    });
    expect(Date.parse(credential.status.expirationTimestamp)).toBe(
      Date.parse(cache().expires_at) - 60_000 - (Date.parse(cache().expires_at) % 1000),
    );
    expect(direct.stderr).toBe('');
  });

  it('prints nothing but the credential, the same through the fast path and through oclif', async () => {
    const env = { KUBERNETES_EXEC_INFO: execInfo(V1) };
    const fast = await home.run(['auth', 'kube-credential', '--context', 'e2e'], { env });
    const slow = await viaOclif(Object.assign(Object.create(home) as CliHome, { env: { ...home.env, ...env } }), [
      'auth',
      'kube-credential',
      '--context',
      'e2e',
    ]);
    expect(fast).toMatchObject({ code: 0, stderr: '' });
    expect(slow).toEqual(fast);
    expect(fast.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(fast.stdout)).toEqual({
      kind: 'ExecCredential',
      apiVersion: V1,
      spec: { interactive: false },
      status: {
        token: cache().access_token,
        expirationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      },
    });
  });

  it.each([
    ['not JSON', '{nope', /KUBERNETES_EXEC_INFO is not JSON/],
    ['an array', '[]', /KUBERNETES_EXEC_INFO is not a JSON object/],
    ['another kind', JSON.stringify({ kind: 'Pod', apiVersion: V1 }), /is not an ExecCredential/],
    [
      'an unknown version',
      execInfo('client.authentication.k8s.io/v1alpha1'),
      /asks for apiVersion "client.authentication.k8s.io\/v1alpha1"/,
    ],
  ])('a malformed KUBERNETES_EXEC_INFO (%s) is one line and exit 3', async (_, value, message) => {
    const out = await home.run(['auth', 'kube-credential'], { env: { KUBERNETES_EXEC_INFO: value } });
    expect(out.code).toBe(3);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain('skiff auth setup-kube');
  });

  it('an expired session without a refresh token tells the kubectl user to run `skiff auth login`, in one line', async () => {
    rewriteCache({ expires_at: new Date(Date.now() - 1000).toISOString(), refresh_token: '' });
    const out = await kubectl(['get', '--raw', '/whoami']);
    expect(out.code).not.toBe(0);
    // kubectl may run the plugin more than once for one command; each run says it in one line.
    const ours = out.stderr.split('\n').filter((line) => line.startsWith('skiff'));
    expect(ours.length).toBeGreaterThan(0);
    expect(new Set(ours)).toEqual(new Set(['skiff: session expired: run `skiff auth login`']));
    const direct = await home.run(['auth', 'kube-credential'], { env: { KUBERNETES_EXEC_INFO: execInfo(V1) } });
    expect(direct).toEqual({ code: 4, stdout: '', stderr: 'skiff: session expired: run `skiff auth login`\n' });
  });
});
