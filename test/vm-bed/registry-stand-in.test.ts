import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The registry stand-in the VM bed's checkpoint suite pulls from (scripts/registry-stand-in.js,
 * docs/cri.md): the OCI distribution API's pull side on a small image layout made here, with
 * the headers containerd's resolver reads and the registry's error JSON for what it lacks.
 */
const standIn = require('../../scripts/registry-stand-in') as {
  repositoryOf(name: string): { repository: string; tag: string };
  serveLayout(dir: string, port?: number): Promise<{ port: number; server: Server }>;
};

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

describe('the registry stand-in', () => {
  let dir: string;
  let base: string;
  let server: Server;
  const blobs = new Map<string, Buffer>();

  const put = (data: Buffer | object): { digest: string; size: number } => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data));
    const hex = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(join(dir, 'blobs', 'sha256', hex), bytes);
    blobs.set(`sha256:${hex}`, bytes);
    return { digest: `sha256:${hex}`, size: bytes.length };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-registry-'));
    mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
    const layer = put(Buffer.from('not really a layer'));
    const config = put({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } });
    const manifest = put({
      schemaVersion: 2,
      mediaType: MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
    });
    const index = {
      schemaVersion: 2,
      manifests: [
        { mediaType: MANIFEST, ...manifest, annotations: { 'io.containerd.image.name': 'docker.io/library/tiny:1' } },
      ],
    };
    writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
    writeFileSync(join(dir, 'blobs', 'sha256', 'f'.repeat(64)), 'bytes that are not their digest');
    const served = await standIn.serveLayout(dir);
    server = served.server;
    base = `http://127.0.0.1:${served.port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const manifestDigest = (): string => [...blobs.entries()].find(([, b]) => b.includes(MANIFEST))![0];
  const errorCode = async (res: Response): Promise<string> =>
    ((await res.json()) as { errors: { code: string }[] }).errors[0].code;

  it('names repositories as a registry does: host and docker.io library/ dropped', () => {
    expect(standIn.repositoryOf('docker.io/library/skiff-busybox:latest')).toEqual({
      repository: 'skiff-busybox',
      tag: 'latest',
    });
    expect(standIn.repositoryOf('localhost:5000/team/app:v2')).toEqual({ repository: 'team/app', tag: 'v2' });
    expect(standIn.repositoryOf('team/app:v2')).toEqual({ repository: 'team/app', tag: 'v2' });
  });

  it('answers /v2/ with the API version header', async () => {
    const res = await fetch(`${base}/v2/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
  });

  it('serves a manifest by tag and by digest, with its media type and digest; HEAD without a body', async () => {
    const digest = manifestDigest();
    const head = await fetch(`${base}/v2/tiny/manifests/1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(MANIFEST);
    expect(head.headers.get('docker-content-digest')).toBe(digest);
    expect(Number(head.headers.get('content-length'))).toBe(blobs.get(digest)!.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const byDigest = await fetch(`${base}/v2/tiny/manifests/${digest}`);
    expect(Buffer.from(await byDigest.arrayBuffer())).toEqual(blobs.get(digest));
  });

  it('serves blobs whole and from a range', async () => {
    const [digest, bytes] = [...blobs.entries()].find(([, b]) => b.toString() === 'not really a layer')!;
    const whole = await fetch(`${base}/v2/tiny/blobs/${digest}`);
    expect(whole.headers.get('docker-content-digest')).toBe(digest);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
    const rest = await fetch(`${base}/v2/tiny/blobs/${digest}`, { headers: { Range: 'bytes=4-' } });
    expect(rest.status).toBe(206);
    expect(await rest.text()).toBe('really a layer');
  });

  it("refuses what it does not serve with the registry's error codes", async () => {
    expect(await errorCode(await fetch(`${base}/v2/other/manifests/1`))).toBe('NAME_UNKNOWN');
    const tag = await fetch(`${base}/v2/tiny/manifests/2`);
    expect(tag.status).toBe(404);
    expect(await errorCode(tag)).toBe('MANIFEST_UNKNOWN');
    expect(await errorCode(await fetch(`${base}/v2/tiny/blobs/sha256:${'0'.repeat(64)}`))).toBe('BLOB_UNKNOWN');
    // A file whose bytes are not its name's digest is not served as that blob.
    expect(await errorCode(await fetch(`${base}/v2/tiny/blobs/sha256:${'f'.repeat(64)}`))).toBe('BLOB_UNKNOWN');
    const push = await fetch(`${base}/v2/tiny/manifests/1`, { method: 'PUT', body: '{}' });
    expect(push.status).toBe(405);
    expect(await errorCode(push)).toBe('UNSUPPORTED');
  });

  it('lists its tags', async () => {
    expect(await (await fetch(`${base}/v2/tiny/tags/list`)).json()).toEqual({ name: 'tiny', tags: ['1'] });
  });
});
