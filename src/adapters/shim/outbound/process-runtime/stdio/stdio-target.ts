import { statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, UnimplementedError } from '../../../../../domain/shared/errors';
import { Stdio } from '../../../../../domain/shim/task-process';

export type StreamName = 'stdin' | 'stdout' | 'stderr';

/** What a stdio string names (docs/shim-contract.md, "stdio"): nothing, a FIFO, or a regular file. */
export type StdioTarget =
  | { readonly kind: 'none' }
  | { readonly kind: 'fifo'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string };

/** A containerd log URI whose program a pod keeper runs (binary-log.ts; docs/containerd.md, "Log URIs"). */
export function isBinaryLogUri(value: string): boolean {
  return value.startsWith('binary://') || value.startsWith('binary-v2://');
}

function fail(subject: string, stream: StreamName, value: string, problem: string): never {
  throw new InvalidArgumentError(`${subject}: ${stream} ${JSON.stringify(value)} ${problem}`, 'STDIO.INVALID');
}

function toPath(value: string, stream: StreamName, subject: string): string {
  if (value.startsWith('file://')) {
    try {
      return fileURLToPath(value);
    } catch {
      return fail(subject, stream, value, 'is not a valid file:// URI (use file:///absolute/path)');
    }
  }
  if (isBinaryLogUri(value))
    throw new UnimplementedError(
      `${subject}: ${stream} ${JSON.stringify(value)}: binary:// and binary-v2:// log URIs are served by the runc runtime under containerd (docs/containerd.md, "Log URIs"); use a FIFO, a file or a file:// URI`,
      'STDIO.SCHEME',
    );
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UnimplementedError(
      `${subject}: ${stream} ${JSON.stringify(value)}: only FIFO paths, files and file:// URIs are supported`,
      'STDIO.SCHEME',
    );
  }
  return value;
}

/** The three streams' targets, classified as resolveStdioTarget does. */
export function resolveStdioTargets(stdio: Stdio, subject: string): Record<StreamName, StdioTarget> {
  return {
    stdin: resolveStdioTarget(stdio.stdin, 'stdin', subject),
    stdout: resolveStdioTarget(stdio.stdout, 'stdout', subject),
    stderr: resolveStdioTarget(stdio.stderr, 'stderr', subject),
  };
}

/** Classifies one stdio string; a missing output path becomes a file created 0600. */
export function resolveStdioTarget(value: string, stream: StreamName, subject: string): StdioTarget {
  if (value === '') return { kind: 'none' };
  const path = toPath(value, stream, subject);
  if (!isAbsolute(path)) fail(subject, stream, value, 'must be an absolute path');
  if (path.includes('\0')) fail(subject, stream, value, 'contains a NUL byte');
  let stats;
  try {
    stats = statSync(path);
  } catch {
    if (stream === 'stdin') fail(subject, stream, value, 'does not exist');
    try {
      if (!statSync(dirname(path)).isDirectory()) throw new Error();
    } catch {
      fail(subject, stream, value, `cannot be created: ${dirname(path)} is not a directory`);
    }
    return { kind: 'file', path };
  }
  if (stats.isFIFO()) return { kind: 'fifo', path };
  if (stats.isDirectory()) fail(subject, stream, value, 'is a directory');
  if (stats.isSocket()) fail(subject, stream, value, 'is a socket; use a FIFO or a file');
  return { kind: 'file', path };
}
