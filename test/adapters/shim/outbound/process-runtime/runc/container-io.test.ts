import {
  FailedPreconditionError,
  InvalidArgumentError,
  UnimplementedError,
} from '../../../../../../src/domain/shared/errors';
import {
  checkStdio,
  openContainerIo,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-io';
import { StdioKeeper } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/launcher';

/** openContainerIo picks one mode from the stdio, the keeper and a takeover; each mode answers a resize its own way. */
describe('openContainerIo', () => {
  const none = { stdin: '', stdout: '', stderr: '', terminal: false };
  const subject = 'task "t"';
  function keeper() {
    const resized: string[] = [];
    const kept: StdioKeeper = {
      resize: async (key, width, height, asked) => void resized.push(`${key} ${width}x${height} ${asked}`),
    };
    return { kept: { keeper: kept, key: 't/e1' }, resized };
  }

  it('without a terminal hands runc its stdio and has no terminal to resize', async () => {
    const io = openContainerIo(none, subject);
    expect(io.runcStdio).toEqual(['ignore', 'ignore', 'ignore']);
    expect(io.runcArgs).toEqual([]);
    expect(io.keptFds).toEqual([]);
    await expect(io.resize(80, 24)).rejects.toMatchObject({ code: 'PTY.NONE' });
    io.release();
  });

  it('taken over with a terminal its pod keeper holds: resizes go to the keeper, under the process key', async () => {
    const { kept, resized } = keeper();
    const io = openContainerIo({ ...none, terminal: true }, subject, { adopted: true, kept });
    await io.resize(100, 30);
    expect(resized).toEqual([`t/e1 100x30 ${subject}`]);
    expect(io.runcArgs).toEqual([]);
  });

  it('taken over with a terminal the previous serving process held: the terminal is lost', async () => {
    const io = openContainerIo({ ...none, terminal: true }, subject, { adopted: true });
    const err = await io.resize(100, 30).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect(err).toMatchObject({ code: 'PTY.LOST' });
  });

  it('taken over with a binary:// stdout: nothing is opened again, and there is no terminal', async () => {
    const { kept } = keeper();
    const io = openContainerIo({ ...none, stdout: 'binary:///bin/cat' }, subject, { adopted: true, kept });
    expect(io.logger).toBeUndefined();
    await expect(io.resize(80, 24)).rejects.toMatchObject({ code: 'PTY.NONE' });
  });

  it('refuses a binary:// stdout no keeper serves, and a terminal one', () => {
    const logged = { ...none, stdout: 'binary:///bin/cat' };
    expect(() => openContainerIo(logged, subject)).toThrow(UnimplementedError);
    expect(() => openContainerIo({ ...logged, terminal: true }, subject, { kept: keeper().kept })).toThrow(
      /binary:\/\/ log URI with a terminal is not served/,
    );
  });
});

describe('checkStdio', () => {
  const subject = 'exec "e1" of task "t"';
  const kept: StdioKeeper = { resize: async () => undefined };

  it("leaves a kept binary:// stdout to its logger's start, and refuses one where no keeper runs it", () => {
    const logged = { stdin: '', stdout: 'binary:///bin/cat', stderr: '', terminal: false };
    expect(() => checkStdio(logged, subject, kept)).not.toThrow();
    expect(() => checkStdio(logged, subject, undefined)).toThrow(UnimplementedError);
  });

  it('refuses a bad stdio string at Exec, kept or not', () => {
    const relative = { stdin: '', stdout: 'out.log', stderr: '', terminal: false };
    expect(() => checkStdio(relative, subject, kept)).toThrow(InvalidArgumentError);
    expect(() => checkStdio(relative, subject, undefined)).toThrow(InvalidArgumentError);
  });
});
