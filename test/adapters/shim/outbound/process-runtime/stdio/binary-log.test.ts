import { InvalidArgumentError, UnimplementedError } from '../../../../../../src/domain/shared/errors';
import { parseBinaryLogUri } from '../../../../../../src/adapters/shim/outbound/process-runtime/stdio/binary-log';
import {
  isBinaryLogUri,
  resolveStdioTarget,
} from '../../../../../../src/adapters/shim/outbound/process-runtime/stdio/stdio-target';
import { openContainerIo } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/container-io';

/** `binary://` log URIs read as containerd's runc shim reads them (process.NewBinaryCmd; docs/containerd.md, "Log URIs"). */
describe('binary:// log URIs', () => {
  it("runs the URI's path, whatever its host, with each query key and its first value as arguments", () => {
    expect(parseBinaryLogUri('binary:///usr/bin/logger', 't')).toEqual({
      scheme: 'binary',
      path: '/usr/bin/logger',
      args: [],
    });
    expect(parseBinaryLogUri('binary:///opt/log%20ger?name=web&-v&name=other&id=a+b%2Fc', 't')).toEqual({
      scheme: 'binary',
      path: '/opt/log ger',
      args: ['name', 'web', '-v', '', 'id', 'a b/c'],
    });
    expect(parseBinaryLogUri('binary://somehost/usr/bin/logger?x=1', 't')).toEqual({
      scheme: 'binary',
      path: '/usr/bin/logger',
      args: ['x', '1'],
    });
  });

  it('reads binary-v2:// (containerd 2.2 and later) the same way, its scheme kept for its readiness rule', () => {
    expect(parseBinaryLogUri('binary-v2:///usr/bin/logger?x=1', 't')).toEqual({
      scheme: 'binary-v2',
      path: '/usr/bin/logger',
      args: ['x', '1'],
    });
    expect(isBinaryLogUri('binary-v2:///usr/bin/logger')).toBe(true);
    expect(isBinaryLogUri('binary-v3:///usr/bin/logger')).toBe(false);
    expect(() => parseBinaryLogUri('binary-v2:///usr/bin/log%', 'task "t"')).toThrow(
      'task "t": stdout "binary-v2:///usr/bin/log%" is not a valid binary-v2:// URI (its path has a malformed % escape; use binary-v2:///absolute/path?arg=value)',
    );
    expect(() => resolveStdioTarget('binary-v2:///usr/bin/logger', 'stdout', 'task "t"')).toThrow(UnimplementedError);
  });

  it('refuses, in one line of the InvalidArgument kind naming the URI, a path whose % escapes do not decode', () => {
    for (const uri of ['binary:///usr/bin/logger%E0%A4%A', 'binary:///usr/bin/log%', 'binary:///usr/bin/%FF']) {
      let thrown: unknown;
      try {
        parseBinaryLogUri(uri, 'task "t"');
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect(thrown).toMatchObject({
        code: 'STDIO.BINARY_URI',
        message:
          `task "t": stdout "${uri}" is not a valid binary:// URI (its path has a malformed % escape; ` +
          'use binary:///absolute/path?arg=value)',
      });
    }
  });

  it('is UNIMPLEMENTED where no pod keeper runs the logger, and with a terminal, naming what to use', () => {
    expect(() => resolveStdioTarget('binary:///usr/bin/logger', 'stdout', 'task "t"')).toThrow(UnimplementedError);
    expect(() => resolveStdioTarget('binary:///usr/bin/logger', 'stdout', 'task "t"')).toThrow(
      'task "t": stdout "binary:///usr/bin/logger": binary:// and binary-v2:// log URIs are served by the runc runtime under containerd',
    );
    const stdio = { stdin: '', stdout: 'binary:///bin/cat', stderr: 'binary:///bin/cat', terminal: false };
    expect(() => openContainerIo(stdio, 'task "t"')).toThrow(
      'task "t": binary:// log URIs are served under containerd behind pod keepers (unset SKIFF_KEEPER=0); use a FIFO or a file:// URI here',
    );
    expect(() => openContainerIo({ ...stdio, terminal: true }, 'task "t"')).toThrow(
      'task "t": a binary:// log URI with a terminal is not served; log a terminal to a FIFO or a file:// URI',
    );
  });
});
