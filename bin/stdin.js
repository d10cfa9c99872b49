'use strict';

/**
 * skiff's process.stdin. Node creates process.stdin on first access, and on a pipe that
 * sets O_NONBLOCK on the pipe's open file description, which skiff shares with whoever
 * else holds the pipe (a shell's next command, `diff -` reading the same pipe): their
 * reads then fail with EAGAIN while skiff runs (Node only restores the flag at exit).
 *
 * Here, stdin on a pipe or FIFO is opened again (/proc/self/fd/0): a description of
 * skiff's own, on the same pipe, which may be non-blocking without anyone else seeing it.
 * Other kinds of stdin (a terminal, which libuv already reopens; a file; a socket, which
 * cannot be reopened; an IPC channel) are Node's own. Nothing happens before a command
 * actually reads process.stdin (or imports it: `import { stdin } from 'node:process'`).
 */
function privatePipeStdin() {
  if (process.platform !== 'linux' || (process.channel && process.channel.fd === 0)) return undefined;
  const fs = require('node:fs');
  let fd;
  try {
    if (!fs.fstatSync(0).isFIFO()) return undefined;
    // O_NONBLOCK: opening a FIFO's read end must not wait for a writer (they may all be gone).
    fd = fs.openSync('/proc/self/fd/0', fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return undefined; // not ours to reopen (another user's pipe): Node's stdin
  }
  // As Node's own getStdin() makes it for a pipe (lib/internal/bootstrap/switches/is_main_thread.js).
  const { Socket } = require('node:net');
  const stdin = new Socket({ fd, readable: true, writable: false, manualStart: true });
  stdin._writableState.ended = true; // stdin cannot be end()-ed
  stdin.fd = 0; // the legacy API: the descriptor this stream reads
  if (stdin._handle && stdin._handle.readStop) {
    stdin._handle.reading = false;
    stdin._readableState.reading = false;
    stdin._handle.readStop();
  }
  // A paused stdin stops reading (one tick later, once the stream has paused) so that the
  // process can end.
  stdin.on('pause', () =>
    process.nextTick(() => {
      if (stdin._handle && stdin._handle.reading && !stdin.readableFlowing) {
        stdin._readableState.reading = false;
        stdin._handle.reading = false;
        stdin._handle.readStop();
      }
    }),
  );
  return stdin;
}

let guarded = false;

/** Replaces Node's process.stdin getter with one that makes the stdin above; once per process. */
function guardStdin() {
  if (guarded) return;
  guarded = true;
  const node = Object.getOwnPropertyDescriptor(process, 'stdin');
  if (node === undefined || typeof node.get !== 'function') return;
  let stdin;
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: node.enumerable,
    get() {
      if (stdin === undefined) stdin = privatePipeStdin() ?? node.get.call(process);
      return stdin;
    },
  });
}

module.exports = { guardStdin };
