'use strict';
// The node's install as docs/install.md describes it, in the guest: the package installed
// globally by the guest's own npm, its three versions one number, containerd's config holding
// the section `skiff containerd config` printed for this containerd, and the shim containerd
// runs being the package's.
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { describe, it } = require('node:test');
require('./support');

const run = (file, args) => execFileSync(file, args, { encoding: 'utf8' });
const FEATURES = 'types.containerd.io/opencontainers/runtime-spec/1/features/Features';

describe("the guest's install of skiff", () => {
  it('is the package installed globally, its versions one number', () => {
    const version = run('skiff', ['--version']);
    const [first, natives, shim] = version.trim().split('\n');
    const number = /^skiff-cli\/(\S+) linux-x64 node-v\d+/.exec(first)?.[1];
    assert.ok(number, version);
    assert.match(
      natives,
      new RegExp(`^native parts ${number} in /usr/local/lib/node_modules/skiff-cli/prebuilds/linux-x64$`),
    );
    assert.match(
      shim,
      new RegExp(`^containerd-shim-skiff-v2 ${number} at /usr/local/bin/containerd-shim-skiff-v2 -> `),
    );
    assert.equal(
      fs.realpathSync('/usr/local/bin/containerd-shim-skiff-v2'),
      '/usr/local/lib/node_modules/skiff-cli/bin/containerd-shim-skiff-v2',
    );
  });

  it("runs under the guest's own Node.js", () => {
    assert.equal(fs.realpathSync(process.execPath), fs.realpathSync(run('sh', ['-c', 'command -v node']).trim()));
    assert.match(run('skiff', ['--version']), new RegExp(`node-${process.version}\\b`));
  });

  it("has containerd's config hold the section printed for this containerd's version, and asks for no second one", () => {
    const major = Number(/ v?(\d+)\.\d+/.exec(run('containerd', ['--version']))?.[1]);
    const printed = run('skiff', ['containerd', 'config', '--config-file', '/nonexistent']);
    assert.match(printed, major >= 2 ? /io\.containerd\.cri\.v1\.runtime/ : /io\.containerd\.grpc\.v1\.cri/);
    const dump = run('containerd', ['config', 'dump']);
    // The handler's table: its keys (sorted, arrays among them) up to the next table header.
    const table = /runtimes\.skiff\]\n((?:(?!\s*\[).*\n)*)/.exec(dump)?.[1] ?? '';
    assert.match(table, /runtime_type = ['"]io\.containerd\.skiff\.v2['"]/, dump);
    const again = spawnSync('skiff', ['containerd', 'config'], { encoding: 'utf8' });
    assert.deepEqual(
      [again.status, again.stdout, again.stderr],
      [
        0,
        '',
        '/etc/containerd/config.toml has the runtime handler skiff already: nothing to add (--config-file /dev/null prints the section on its own)\n',
      ],
    );
  });

  it("answers `-info` as the runc shim does: a RuntimeInfo with the OCI runtime's features", () => {
    // containerd 2.x asks a shim that is not runc's before its first task; protobuf bytes on stdout.
    const info = (shim) => spawnSync(shim, ['-info'], { input: '' });
    const runc = info('containerd-shim-runc-v2');
    const skiff = info('containerd-shim-skiff-v2');
    // containerd 1.7's runc shim has no -info (2.0 added the question); skiff answers either way.
    const replies = runc.status === 0 ? [runc.stdout, skiff.stdout] : [skiff.stdout];
    assert.equal(skiff.status, 0, skiff.stderr.toString());
    for (const reply of replies) {
      assert.ok(reply.includes(FEATURES), 'a features Any');
      // runc features prints indented JSON: from the brace before its first key to the last brace.
      const key = reply.indexOf('"ociVersionMin"');
      assert.ok(key > 0, 'the features JSON');
      const json = JSON.parse(reply.subarray(reply.lastIndexOf('{', key), reply.lastIndexOf('}') + 1).toString('utf8'));
      assert.match(json.ociVersionMin, /^1\./);
    }
    assert.ok(skiff.stdout.includes('io.containerd.skiff.v2'), 'its name');
  });
});
