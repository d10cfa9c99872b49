import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { task } from '../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import * as layout from '../../src/adapters/shim/outbound/process-runtime/task-layout';
import { RuncRuntime } from '../../src/adapters/shim/outbound/process-runtime/runc/runc-runtime';
import { nativeAddon } from '../../src/adapters/shim/os/native-addon';
import { runcTestsEnabled } from '../support/runc-bundles';
import { ROOT } from './support/c-build';

/**
 * docs/on-disk-layout.md has two statements in code, task-layout.ts and task-layout.h; they
 * are held together here: the names, and the C `delete` run on task files the TypeScript laid out.
 * A task's teardown is written twice too, `delete` (native/containerd-shim/delete.c) and
 * RuncRuntime.removeLeftover: both are run on the same leftover and must leave the same world.
 */
const HEADER = resolve(ROOT, 'native/common/task-layout.h');
const SHIM = resolve(ROOT, 'build/Release/containerd-shim-skiff-v2');

function headerStrings(): Record<string, string> {
  const defines: Record<string, string> = {};
  for (const [, name, value] of readFileSync(HEADER, 'utf8').matchAll(/^#define (LAYOUT_\w+) "([^"]*)"$/gm))
    defines[name] = value;
  return defines;
}

describe('the on-disk layout in C and in TypeScript', () => {
  it('names the same files and directories', () => {
    expect(headerStrings()).toEqual({
      LAYOUT_BUNDLES_MARK: `/${layout.BUNDLES_DIR}/`,
      LAYOUT_SKIFF_DIR: layout.SKIFF_DIR,
      LAYOUT_TASKS_DIR: layout.TASKS_DIR,
      // No TypeScript names it: CreateSandbox hands the serving process the sandbox's bundle.
      LAYOUT_SANDBOXES_MARK: '/io.containerd.sandbox.controller.v1.shim/',
      // No TypeScript names a pod keeper's files: the preamble hands the serving process its socket.
      LAYOUT_POD_PREFIX: 'k-',
      LAYOUT_INIT_PID_FILE: layout.INIT_PID_FILE,
      LAYOUT_OCI_RUNTIME_FILE: layout.OCI_RUNTIME_FILE,
      LAYOUT_OCI_RUNTIME_BINARY: 'binary',
      LAYOUT_OCI_RUNTIME_ROOT: 'root',
    });
    // The record's member names are the interface's.
    const record: layout.OciRuntimeRecord = { binary: '/b', root: '/r' };
    expect(Object.keys(record)).toEqual(['binary', 'root']);
  });

  if (process.platform === 'linux')
    it("delete finds the task files the serving process laid out and runs the OCI runtime its record names, with that runtime's root", () => {
      const containerdState = mkdtempSync(join(tmpdir(), 'skiff-layout-'));
      try {
        const [ns, id] = ['k8s.io', 'c-1'];
        const stateDir = layout.serverStateDir(containerdState, ns);
        const bundle = join(containerdState, layout.BUNDLES_DIR, ns, id);
        expect(layout.bundlesDir(stateDir, ns)).toBe(join(containerdState, layout.BUNDLES_DIR, ns));
        mkdirSync(bundle, { recursive: true });
        const dir = layout.taskDir(stateDir, id);
        mkdirSync(dir, { recursive: true });
        // Any runc-compatible binary: this one writes down how it was called.
        const runtime = join(containerdState, 'oci-runtime');
        writeFileSync(runtime, `#!/bin/sh\nprintf '%s\\n' "$@" > "$0.args"\n`);
        chmodSync(runtime, 0o755);
        const root = layout.runtimeRoot(stateDir, 'crun');
        layout.writeOciRuntimeRecord(dir, { binary: runtime, root, bundle });
        writeFileSync(join(dir, layout.INIT_PID_FILE), '4321');

        const result = spawnSync(
          SHIM,
          ['-namespace', ns, '-address', '/c.sock', '-id', id, '-bundle', bundle, 'delete'],
          {
            encoding: 'buffer',
            env: { PATH: '/nonexistent' },
          },
        );
        expect(result.stderr.toString()).toBe('');
        expect(result.status).toBe(0);
        expect(readFileSync(`${runtime}.args`, 'utf8').split('\n')).toEqual([
          '--root',
          root,
          'delete',
          '--force',
          id,
          '',
        ]);
        const reply = task.v2.DeleteResponse.deserialize(result.stdout);
        expect([reply.pid, reply.exit_status]).toEqual([4321, 137]);
        expect(existsSync(dir)).toBe(false);
      } finally {
        rmSync(containerdState, { recursive: true, force: true });
      }
    });

  if (process.platform === 'linux' && runcTestsEnabled())
    it('delete and RuncRuntime.removeLeftover tear the same leftover down alike: the runtime run the same way, every rootfs mount gone, the task dir gone', async () => {
      const containerdState = mkdtempSync(join(tmpdir(), 'skiff-teardown-'));
      const [ns, id] = ['k8s.io', 'c-1'];
      const stateDir = layout.serverStateDir(containerdState, ns);
      const bundle = join(containerdState, layout.BUNDLES_DIR, ns, id);
      const rootfs = join(bundle, 'rootfs');
      const runtime = join(containerdState, 'oci-runtime');
      writeFileSync(runtime, `#!/bin/sh\nprintf '%s\\n' "$@" > "$0.args"\n`);
      chmodSync(runtime, 0o755);
      const root = layout.runtimeRoot(stateDir, 'runc');
      /** A Create cut short: the runtime's record and the rootfs mounted (three deep), no task record. */
      const leftover = (): void => {
        mkdirSync(rootfs, { recursive: true });
        const dir = layout.taskDir(stateDir, id);
        mkdirSync(dir, { recursive: true });
        layout.writeOciRuntimeRecord(dir, { binary: runtime, root, bundle });
        for (let i = 0; i < 3; i++) nativeAddon().mount('tmpfs', rootfs, 'tmpfs', 0, 'size=64k');
        rmSync(`${runtime}.args`, { force: true });
      };
      /** What is left: how the runtime was run, the mounts on the rootfs, whether the task dir is there. */
      const world = () => ({
        runtime: readFileSync(`${runtime}.args`, 'utf8').split('\n'),
        mounts: readFileSync('/proc/self/mountinfo', 'utf8')
          .split('\n')
          .filter((line) => line.split(' ')[4] === rootfs).length,
        taskDir: existsSync(layout.taskDir(stateDir, id)),
      });
      try {
        leftover();
        const result = spawnSync(
          SHIM,
          ['-namespace', ns, '-address', '/c.sock', '-id', id, '-bundle', bundle, 'delete'],
          {
            encoding: 'buffer',
            env: { PATH: '/nonexistent', SKIFF_KEEPER: '0' },
          },
        );
        expect([result.status, result.stderr.toString()]).toEqual([0, '']);
        const byDelete = world();

        leftover();
        await expect(new RuncRuntime(stateDir).removeLeftover(id)).resolves.toBe(true);
        const byServingProcess = world();

        expect(byDelete).toEqual({ runtime: ['--root', root, 'delete', '--force', id, ''], mounts: 0, taskDir: false });
        // The one difference: the serving process has runc log to the bundle's log.json, which it
        // reads into its errors (runc-cli.ts, lastLogError); `delete` leaves runc's stderr on containerd's log.
        const logged = byServingProcess.runtime.indexOf('--log');
        expect(byServingProcess.runtime.splice(logged, 4)).toEqual([
          '--log',
          join(bundle, 'log.json'),
          '--log-format',
          'json',
        ]);
        expect(byServingProcess).toEqual(byDelete);
      } finally {
        for (let i = 0; i < 16; i++)
          try {
            nativeAddon().unmount(rootfs, 2);
          } catch {
            break;
          }
        rmSync(containerdState, { recursive: true, force: true });
      }
    });
});
