import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuncCli } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-cli';
import { RuncContainer } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-container';
import { DirectLauncher } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/direct-launcher';
import { RuncTaskHandle } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-task-handle';
import { ContainerProcess } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-process';
import { RootfsMounts } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/rootfs-mounts';
import { openFileKey } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/criu-stdio';
import { CHECKPOINT_OPTIONS_TYPE_URL } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/checkpoint-options';
import { containerd } from '../../../../../../src/adapters/shim/wire/proto/generated/containerd/runc';
import { Reaper } from '../../../../../../src/adapters/shim/os/reaper';
import { FailedPreconditionError, InvalidArgumentError } from '../../../../../../src/domain/shared/errors';

/**
 * RuncTaskHandle.checkpoint against a runc that is a script: what it is given (arguments, criu's
 * configuration for the stdio criu cannot see) and what a failed dump comes back as. The
 * "container" is a sleep whose stdin is a FIFO and stdout a file, as skiff gives them.
 */
describe("the runc runtime's Checkpoint", () => {
  const root = mkdtempSync(join(tmpdir(), 'skiff-ckpt-'));
  const calls = join(root, 'calls');
  const runc = join(root, 'runc');
  // Records its arguments and CRIU_CONFIG_FILE's text; `checkpoint` fails when FAIL exists,
  // leaving a dump.log with criu's error in its work directory, as runc does.
  writeFileSync(
    runc,
    `#!/bin/sh
echo "ARGS $*" >> ${calls}
[ -n "$CRIU_CONFIG_FILE" ] && sed 's/^/CONF /' "$CRIU_CONFIG_FILE" >> ${calls}
echo "PATH $PATH" >> ${calls}
work=; prev=
for a in "$@"; do [ "$prev" = --work-path ] && work=$a; prev=$a; done
if [ -e ${join(root, 'FAIL')} ]; then
  echo "(00.100000) Error (criu/files-reg.c:1000): Can't dump ghost file /tmp/big of 2097152 size, increase limit" > "$work/dump.log"
  echo "criu failed: type NOTIFY errno 0" >&2
  exit 1
fi
exit 0
`,
    { mode: 0o755 },
  );
  let child: ChildProcess;
  let handle: RuncTaskHandle;
  const bundle = join(root, 'bundle');
  const taskDir = join(root, 'task');
  let criuProblem: string | undefined;

  beforeAll(() => {
    spawnSync('mkdir', ['-p', bundle, taskDir]);
    const fifo = join(root, 'stdin');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const stdin = openSync(fifo, constants.O_RDWR);
    const stdout = openSync(join(root, 'stdout.log'), 'w');
    child = spawn('sleep', ['60'], { stdio: [stdin, stdout, 'pipe'] });
    closeSync(stdin);
    closeSync(stdout);
    const container = new RuncContainer(
      'c1',
      bundle,
      taskDir,
      true,
      new RuncCli(runc, root),
      new DirectLauncher({} as Reaper),
    );
    handle = new RuncTaskHandle(container, {
      init: {
        pid: child.pid,
        stdio: { stdin: fifo, stdout: join(root, 'stdout.log'), stderr: '', terminal: false },
      } as unknown as ContainerProcess,
      mounts: {} as RootfsMounts,
      configProcess: {},
      restoreFrom: '',
      poststartHooks: false,
      criu: {
        status: async () => (criuProblem === undefined ? { binary: '/opt/criu/sbin/criu' } : { problem: criuProblem }),
      },
      restorer: new DirectLauncher({} as Reaper),
    });
  });
  afterAll(() => {
    child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    rmSync(calls, { force: true });
    rmSync(join(root, 'FAIL'), { force: true });
    criuProblem = undefined;
  });

  const lines = (prefix: string) =>
    readFileSync(calls, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${prefix} `))
      .map((l) => l.slice(prefix.length + 1));

  it("names the FIFO and the file of the container's stdio external to criu, records them beside the images, and passes the options", async () => {
    const image = join(root, 'image1');
    const options = {
      typeUrl: CHECKPOINT_OPTIONS_TYPE_URL,
      value: new containerd.runc.v1.CheckpointOptions({ file_locks: true }).serialize(),
    };
    await handle.checkpoint(image, options);
    const work = join(taskDir, 'checkpoint-work');
    expect(lines('ARGS')).toEqual([
      expect.stringMatching(
        new RegExp(`checkpoint --image-path ${image} --work-path ${work} --leave-running --file-locks c1$`),
      ),
    ]);
    // The files the container holds at its stdin and stdout, by criu's key.
    const external = lines('CONF');
    const held = [0, 1].map((fd) => openFileKey(child.pid as number, fd));
    expect(held).toEqual([expect.stringMatching(/^file\[[0-9a-f]+:[0-9a-f]+\]$/), expect.stringMatching(/^file\[/)]);
    expect(external).toEqual(held.map((key) => `external ${key}`));
    const record = JSON.parse(readFileSync(join(image, 'skiff-stdio.json'), 'utf8')) as { fd: number; key: string }[];
    expect(record.map((e) => e.fd)).toEqual([0, 1]);
    expect(record.map((e) => `external ${e.key}`)).toEqual(external);
    // runc 1.2 and later run the criu of their PATH.
    expect(lines('PATH')[0]).toMatch(/:\/opt\/criu\/sbin$/);
    // Its own work directory goes afterwards.
    expect(existsSync(work)).toBe(false);
  });

  it("answers a failed dump with one FAILED_PRECONDITION carrying criu's error and its log, kept as <bundle>/criu-dump.log", async () => {
    writeFileSync(join(root, 'FAIL'), '');
    const err = await handle.checkpoint(join(root, 'image2')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    const log = join(bundle, 'criu-dump.log');
    expect((err as Error).message).toBe(
      `task "c1": runc checkpoint failed: criu failed: type NOTIFY errno 0 (criu: Can't dump ghost file /tmp/big of 2097152 size, increase limit; log ${log})`,
    );
    expect(readFileSync(log, 'utf8')).toContain("Can't dump ghost file");
    expect(child.exitCode).toBeNull();
  });

  it('keeps a work_path it was given', async () => {
    const work = join(root, 'kept-work');
    const options = {
      typeUrl: CHECKPOINT_OPTIONS_TYPE_URL,
      value: new containerd.runc.v1.CheckpointOptions({ work_path: work, exit: true }).serialize(),
    };
    await handle.checkpoint(join(root, 'image3'), options);
    expect(lines('ARGS')[0]).toMatch(new RegExp(`--work-path ${work} c1$`));
    expect(existsSync(join(work, 'skiff-criu.conf'))).toBe(true);
  });

  it('refuses before runc runs: options it cannot read (INVALID_ARGUMENT), criu that does not work here (FAILED_PRECONDITION)', async () => {
    const bad = { typeUrl: 'io.example.Other', value: new Uint8Array([8, 1]) };
    await expect(handle.checkpoint(join(root, 'image4'), bad)).rejects.toBeInstanceOf(InvalidArgumentError);
    criuProblem = 'criu is not installed (Debian/Ubuntu: apt-get install criu)';
    const err = await handle.checkpoint(join(root, 'image5')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toBe(
      'cannot checkpoint task "c1": criu is not installed (Debian/Ubuntu: apt-get install criu)',
    );
    expect(existsSync(calls)).toBe(false);
  });
});
