import type { PodSandboxFields, SandboxState } from '../../../domain/shim/sandbox';

/** containerd.runtime.sandbox.v1.Sandbox's messages as the sandbox service sees them, free of protobuf. */

export interface CreateSandboxInput {
  readonly id: string;
  /** containerd's sandbox bundle, <state>/io.containerd.sandbox.controller.v1.shim/<ns>/<id>. */
  readonly bundle: string;
  /** The network namespace CRI made; '' for a pod of the node's network. */
  readonly netnsPath: string;
  readonly pod: PodSandboxFields;
}

export interface SandboxStarted {
  readonly pid: number;
  readonly createdAt: Date;
}

export interface SandboxStatusView {
  readonly id: string;
  readonly pid: number;
  readonly state: SandboxState;
  readonly createdAt?: Date;
  readonly exitedAt?: Date;
}

export interface SandboxExitView {
  readonly exitStatus: number;
  readonly exitedAt: Date;
}

export interface SandboxPlatform {
  readonly os: string;
  /** GOARCH's name, as containerd's platforms are written (amd64, arm64). */
  readonly architecture: string;
}

export interface SandboxMetricsView {
  readonly id: string;
  readonly at: Date;
}
