import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../../../../src/domain/shared/errors';
import { readBundleConfig } from '../../../../../src/adapters/shim/outbound/process-runtime/bundle';
import { readOciRuntimeRecord } from '../../../../../src/adapters/shim/outbound/process-runtime/task-layout';
import { readRuncOptions } from '../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-options';
import { podSocketOfBundle } from '../../../../../src/adapters/shim/outbound/keeper/pod-keepers';
import { readPidFile } from '../../../../../src/adapters/shim/os/pid-file';
import { runtimeoptions } from '../../../../../src/adapters/shim/wire/proto/generated/containerd/runtimeoptions';

/**
 * What the serving process reads synchronously, on its event loop, from a bundle, a task dir or a
 * file containerd names (issue 41, finding 6): a FIFO there would stop the loop for good and a
 * link to /dev/zero would fill the memory. Each is read through the no-follow-file helper: never
 * through a link (unless the file is the user's own, as the options file), never waited on, never
 * past its size limit; a bad one fails its own task in one line, or is no such file.
 */
describe("the serving process's synchronous reads of bundles and task dirs", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-reads-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Each bad kind of file at `path`, in turn: a FIFO nobody writes, then a link to /dev/zero. */
  function eachBad(path: string, check: (kind: 'fifo' | 'link') => void): void {
    execFileSync('mkfifo', [path]);
    check('fifo');
    rmSync(path);
    symlinkSync('/dev/zero', path);
    check('link');
    rmSync(path);
  }

  it("refuses a bundle's config.json that is a FIFO or a link, in one InvalidArgument line naming the task and the file", () => {
    const config = join(dir, 'config.json');
    eachBad(config, (kind) => {
      const run = () => readBundleConfig('t1', dir);
      expect(run).toThrow(InvalidArgumentError);
      expect(run).toThrow(
        kind === 'fifo'
          ? `task "t1": ${config} is not a regular file: remove it; a bundle holds an OCI config.json, a regular file`
          : `task "t1": ${config} is a symbolic link, which skiff never follows for its own files: remove the link; ` +
              'a bundle holds an OCI config.json, a regular file',
      );
    });
    writeFileSync(config, `{"ociVersion": "1.0.2", "x": "${'a'.repeat(4 * 1024 * 1024)}"}`);
    expect(() => readBundleConfig('t1', dir)).toThrow(`task "t1": ${config} is larger than 4194304 bytes`);
  });

  it('refuses a runtime options file that is a FIFO or a device (a link to a regular one is followed, as containerd does)', () => {
    const file = join(dir, 'crun.toml');
    const generic = {
      typeUrl: 'runtimeoptions.v1.Options',
      value: new runtimeoptions.v1.Options({ config_path: file }).serialize(),
    };
    eachBad(file, () => {
      expect(() => readRuncOptions(generic, 'task "t1"')).toThrow(
        `task "t1": runtime options file ${file} cannot be read (not a regular file)`,
      );
    });
    writeFileSync(join(dir, 'real.toml'), 'SystemdCgroup = true\n');
    symlinkSync(join(dir, 'real.toml'), file);
    expect(readRuncOptions(generic, 'task "t1"').systemdCgroup).toBe(true);
  });

  it("takes a bundle's address, a task dir's runtime record and a pid file that is a FIFO or a link for none", () => {
    eachBad(join(dir, 'address'), () => expect(podSocketOfBundle(dir)).toBeUndefined());
    eachBad(join(dir, 'oci-runtime.json'), () => expect(readOciRuntimeRecord(dir)).toBeUndefined());
    eachBad(join(dir, 'init.pid'), () => expect(readPidFile(join(dir, 'init.pid'))).toBeUndefined());
    writeFileSync(join(dir, 'init.pid'), `${' '.repeat(100)}42\n`);
    expect(readPidFile(join(dir, 'init.pid'))).toBeUndefined();
    writeFileSync(join(dir, 'init.pid'), '42\n');
    expect(readPidFile(join(dir, 'init.pid'))).toBe(42);
  });
});
