import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { task } from '../../src/adapters/shim/wire/proto/generated/task/v2/shim';
import { containerd } from '../../src/adapters/shim/wire/proto/generated/sandbox/v1/sandbox';
import { READ_ONLY_METHODS } from '../../src/adapters/shim/inbound/ttrpc/read-only-methods';
import { ROOT } from './support/c-build';

/**
 * Facts the pod keeper's C and the serving process's TypeScript both state (docs/architecture.md,
 * "An RPC of the task service"), held together here: which task methods change nothing, the
 * method names the keeper reads requests by, each one task.v2.Task has, and the letters of the
 * control connection's messages (docs/keeper-protocol.md) each side sends and takes.
 */
const relay = readFileSync(resolve(ROOT, 'native/keeper/relay.c'), 'utf8');
const learned = readFileSync(resolve(ROOT, 'native/keeper/state-learned.c'), 'utf8');
const controlWire = readFileSync(resolve(ROOT, 'native/keeper/control-wire.c'), 'utf8');
const held = ['held.c', 'held-launch.c', 'held-reap.c']
  .map((file) => readFileSync(resolve(ROOT, 'native/keeper', file), 'utf8'))
  .join('\n');
const keeperControl = readFileSync(resolve(ROOT, 'src/adapters/shim/outbound/keeper/keeper-control.ts'), 'utf8');
const TASK_METHODS = Object.keys(task.v2.UnimplementedTaskService.definition);
/** The keeper relays the Sandbox service on the same socket (docs/sandbox-api.md) and reads its ShutdownSandbox. */
const SANDBOX_METHODS = Object.keys(containerd.runtime.sandbox.v1.UnimplementedSandboxService.definition);

/** The strings of the C array `name` in `source`. */
function cStrings(source: string, name: string): string[] {
  const array = new RegExp(`${name}\\[\\] = \\{([^}]*)\\}`).exec(source);
  if (array === null) throw new Error(`no array ${name} in the C source`);
  return [...array[1].matchAll(/"([^"]*)"/g)].map((m) => m[1]);
}

describe('the task methods the keeper and the serving process both name', () => {
  it('are the same read-only methods in relay.c and read-only-methods.ts', () => {
    expect(cStrings(relay, 'READ_ONLY').sort()).toEqual([...READ_ONLY_METHODS].sort());
  });

  it('are methods of task.v2.Task or of the Sandbox service, where the keeper reads a request by its name', () => {
    const named = [
      ...READ_ONLY_METHODS,
      ...cStrings(relay, 'STATE_NEUTRAL'),
      ...[...relay.matchAll(/strcmp\([^,]*method, "(\w+)"\)/g)].map((m) => m[1]),
      ...[...learned.matchAll(/strcmp\(method, "(\w+)"\)/g)].map((m) => m[1]),
    ];
    expect(named.length).toBeGreaterThan(READ_ONLY_METHODS.size + 4);
    for (const method of named) expect([...TASK_METHODS, ...SANDBOX_METHODS]).toContain(method);
    expect(named).toContain('ShutdownSandbox');
  });
});

/** Sorted, each once. */
const letters = (found: Iterable<RegExpMatchArray>) => [...new Set([...found].map((m) => m[1]))].sort();

describe("the control connection's message letters", () => {
  it('that the serving process sends are the ones control-wire.c takes', () => {
    const sent = letters(keeperControl.matchAll(/this\.(?:ask|send)\(\s*'([A-Z])'/g));
    expect(sent).toEqual(letters(controlWire.matchAll(/case '([A-Z])':/g)));
    expect(sent.length).toBeGreaterThanOrEqual(6);
  });

  it('that the keeper sends are the ones the serving process reads', () => {
    const sent = letters(held.matchAll(/control_send\('([A-Za-z])'/g));
    expect(sent).toEqual(letters(keeperControl.matchAll(/type === '([A-Za-z])'/g)));
    expect(sent.length).toBeGreaterThanOrEqual(5);
  });
});
