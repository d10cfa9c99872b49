import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { containerd as introspection } from '../../../src/adapters/shim/wire/proto/generated/containerd/introspection';
import { containerd as runc } from '../../../src/adapters/shim/wire/proto/generated/containerd/runc';
import { runtimeoptions } from '../../../src/adapters/shim/wire/proto/generated/containerd/runtimeoptions';
import { google } from '../../../src/adapters/shim/wire/proto/generated/google/protobuf/any';
import { findInPath } from '../../../src/adapters/shim/os/find-executable';

/**
 * `containerd-shim-skiff-v2 -info`, as containerd 2.x runs it (core/runtime/v2/task_manager.go
 * getRuntimeInfo): the runtime options, a marshalled Any, on stdin (none at all from
 * loadShimInfo), a containerd.types.RuntimeInfo on stdout, decoded here with
 * proto/containerd/introspection.proto.
 */
const SHIM = resolve(__dirname, '../../../bin/containerd-shim-skiff-v2');
const VERSION = (JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string })
  .version;
const FEATURES_TYPE_URL = 'types.containerd.io/opencontainers/runtime-spec/1/features/Features';
const RUNC = findInPath('runc', process.env.PATH ?? '');
const LINUX = process.platform === 'linux';

function info(stdin: Uint8Array, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(SHIM, ['-info'], { input: stdin, timeout: 10_000, env: { ...process.env, ...env } });
  return { status: result.status, stderr: result.stderr.toString(), stdout: new Uint8Array(result.stdout) };
}

const any = (typeUrl: string, value: Uint8Array) => new google.protobuf.Any({ type_url: typeUrl, value }).serialize();
const runcOptions = (fields: ConstructorParameters<typeof runc.runc.v1.Options>[0]) =>
  any('containerd.runc.v1.Options', new runc.runc.v1.Options(fields).serialize());

const decode = (bytes: Uint8Array) => introspection.types.RuntimeInfo.deserialize(bytes);

if (!LINUX) process.stderr.write('containerd-shim-skiff-v2 -info suite not run: the binary is Linux-only\n');

(LINUX ? describe : describe.skip)('containerd-shim-skiff-v2 -info', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-info-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A runc-compatible binary that answers `features` with `json` (and logs its argv), or fails it. */
  function fakeRuntime(name: string, features: string | undefined): string {
    const path = join(dir, name);
    const body =
      features === undefined
        ? 'echo "unknown command $1" >&2; exit 1'
        : `echo "$@" >> ${join(dir, `${name}.log`)}; [ "$1" = features ] && printf '%s\\n' '${features}'`;
    writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return path;
  }

  (RUNC === undefined ? it.skip : it)(
    "with no options: skiff's name and version, and runc's features, as the runc shim answers",
    () => {
      const result = info(new Uint8Array());
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      const decoded = decode(result.stdout);
      expect(decoded.name).toBe('io.containerd.skiff.v2');
      expect(decoded.version.toObject()).toEqual({ version: VERSION, revision: '' });
      expect(decoded.has_options).toBe(false);
      expect(decoded.features.type_url).toBe(FEATURES_TYPE_URL);
      const features = JSON.parse(Buffer.from(decoded.features.value).toString('utf8')) as Record<string, unknown>;
      expect(features).toMatchObject({ ociVersionMin: expect.any(String), ociVersionMax: expect.any(String) });
      expect(features.hooks).toContain('prestart');
      // The mount types skiff mounts itself, which containerd 2.3's mount manager leaves to it (docs/containerd.md).
      expect(Object.fromEntries(decoded.annotations)).toEqual({ 'containerd.io/runtime-allow-mounts': 'bind,overlay' });
    },
  );

  it('takes binary_name of containerd.runc.v1.Options for the features, and gives the options back', () => {
    const binary = fakeRuntime('other-runc', '{"ociVersionMin":"1.0.0","ociVersionMax":"1.2.1"}');
    const options = runcOptions({ binary_name: binary, systemd_cgroup: true });
    const result = info(options);
    expect(result.status).toBe(0);
    const decoded = decode(result.stdout);
    expect(decoded.options.type_url).toBe('containerd.runc.v1.Options');
    expect(runc.runc.v1.Options.deserialize(decoded.options.value).toObject()).toMatchObject({
      binary_name: binary,
      systemd_cgroup: true,
    });
    expect(JSON.parse(Buffer.from(decoded.features.value).toString('utf8'))).toEqual({
      ociVersionMin: '1.0.0',
      ociVersionMax: '1.2.1',
    });
    expect(readFileSync(`${binary}.log`, 'utf8')).toBe('features\n');
    // A name is looked up in containerd's PATH.
    const byName = info(runcOptions({ binary_name: 'other-runc' }), { PATH: `${dir}:/usr/bin:/bin` });
    expect(byName.status).toBe(0);
    expect(decode(byName.stdout).features.type_url).toBe(FEATURES_TYPE_URL);
  });

  it('leaves the features out when the runtime has no `features` command (youki, older crun)', () => {
    const binary = fakeRuntime('no-features', undefined);
    const result = info(runcOptions({ binary_name: binary }));
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    const decoded = decode(result.stdout);
    expect(decoded.name).toBe('io.containerd.skiff.v2');
    expect(decoded.has_features).toBe(false);
    expect(decoded.has_options).toBe(true);
  });

  (RUNC === undefined ? it.skip : it)("echoes runtimeoptions.v1.Options, with runc's features", () => {
    const options = any(
      'runtimeoptions.v1.Options',
      new runtimeoptions.v1.Options({ config_path: '/etc/skiff/crun.toml' }).serialize(),
    );
    const result = info(options);
    expect(result.status).toBe(0);
    const decoded = decode(result.stdout);
    expect(Buffer.from(decoded.options.serialize())).toEqual(Buffer.from(options));
    expect(decoded.features.type_url).toBe(FEATURES_TYPE_URL);
  });

  it('fails in one line, as the runc shim does, for options of another type or a binary not found', () => {
    const other = info(any('io.example.Options', new Uint8Array([8, 1])));
    expect(other).toMatchObject({ status: 1, stdout: new Uint8Array() });
    expect(other.stderr).toBe(
      'containerd-shim-skiff-v2: runtime options of type "io.example.Options" are not understood; send containerd.runc.v1.Options, runtimeoptions.v1.Options or none\n',
    );
    const missing = info(runcOptions({ binary_name: 'no-such-oci-runtime' }));
    expect(missing).toMatchObject({ status: 1, stdout: new Uint8Array() });
    expect(missing.stderr).toBe(
      "containerd-shim-skiff-v2: cannot find the OCI runtime in containerd's PATH: no-such-oci-runtime\n",
    );
    const garbage = info(Buffer.from('not protobuf'));
    expect(garbage.status).toBe(1);
    expect(garbage.stderr).toBe(
      'containerd-shim-skiff-v2: the runtime options on stdin are not a google.protobuf.Any\n',
    );
  });
});
