/**
 * Service names as containerd 1.6 calls them over ttrpc. The task service's messages
 * are task.v2's byte for byte (containerd's runtime/v2/task/shim.proto has package
 * containerd.task.v2); the events service is api/services/ttrpc/events/v1/events.proto.
 */
export const TTRPC_TASK_SERVICE = 'containerd.task.v2.Task';
export const TTRPC_EVENTS_SERVICE = 'containerd.services.events.ttrpc.v1.Events';
/** containerd 2.x's Sandbox API (api/runtime/sandbox/v1/sandbox.proto), served beside the task service: docs/sandbox-api.md. */
export const TTRPC_SANDBOX_SERVICE = 'containerd.runtime.sandbox.v1.Sandbox';
