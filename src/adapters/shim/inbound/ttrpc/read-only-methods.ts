/**
 * The calls that change nothing: a pod keeper sends them again to the next serving process
 * when its upstream closes with them in flight (docs/keeper-protocol.md, "The relay";
 * native/keeper/relay.c holds the same list). A hand-over leaves them to it.
 */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set([
  // task.v2.Task's
  'Wait',
  'State',
  'Pids',
  'Stats',
  'Connect',
  // containerd.runtime.sandbox.v1.Sandbox's (docs/sandbox-api.md): a WaitSandbox lasts the pod's life
  'WaitSandbox',
  'Platform',
  'PingSandbox',
  'SandboxStatus',
  'SandboxMetrics',
]);
