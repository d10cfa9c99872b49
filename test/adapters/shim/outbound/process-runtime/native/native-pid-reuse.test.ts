import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// A task's init is counted by its pid as well as by its session only while its launch is
// pending (native/addon/launch.c): once it has exited, that pid may be another process's. The
// case runs in a pid namespace of its own (unshare, as root or in a user namespace), where
// ns_last_pid hands the exited init's pid to the next process, against the built runtime.
const DIST = join(__dirname, '../../../../../../dist/adapters/shim/outbound/process-runtime/native');

const SCRIPT = `
  const fs = require('node:fs');
  const { join } = require('node:path');
  const { spawn } = require('node:child_process');
  const { NativeRuntime } = require(${JSON.stringify(DIST)} + '/native-runtime');
  (async () => {
    const bundle = fs.mkdtempSync('/tmp/skiff-pid-reuse-');
    fs.mkdirSync(join(bundle, 'rootfs'));
    const process_ = { args: ['sleep', '100'], env: ['PATH=/usr/bin:/bin'], cwd: '/' };
    fs.writeFileSync(join(bundle, 'config.json'), JSON.stringify({ ociVersion: '1.0.2', process: process_ }));
    let exited;
    const exit = new Promise((resolve) => (exited = resolve));
    const stdio = { stdin: '', stdout: '', stderr: '', terminal: false };
    const task = await new NativeRuntime().create({ id: 'r', bundle, stdio, rootfs: [], checkpoint: '' }, { onExit: exited, execs: () => [] });
    const initPid = task.pid;
    process.kill(initPid, 'SIGKILL');
    await exit;
    fs.writeFileSync('/proc/sys/kernel/ns_last_pid', String(initPid - 1));
    const other = spawn('sleep', ['100']);
    const result = { initPid, otherPid: other.pid, pids: await task.pids(), stats: await task.stats() };
    other.kill('SIGKILL');
    await task.delete();
    fs.rmSync(bundle, { recursive: true });
    process.stdout.write(JSON.stringify(result));
  })().catch((err) => { console.error(err); process.exit(1); });
`;

describe('NativeTaskHandle after its init exited', () => {
  it('counts no other process that took the init’s pid (Pids, Stats)', () => {
    const asRoot = process.getuid?.() === 0;
    const namespace = asRoot ? [] : ['--user', '--map-root-user'];
    const out = execFileSync(
      'unshare',
      [...namespace, '--pid', '--fork', '--mount-proc', process.execPath, '-e', SCRIPT],
      {
        encoding: 'utf8',
      },
    );
    const result = JSON.parse(out);
    expect(result.otherPid).toBe(result.initPid);
    expect({ pids: result.pids, processes: result.stats.pidsCurrent }).toEqual({ pids: [], processes: 0 });
  });
});
