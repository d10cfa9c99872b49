import { TaskClient, TaskClientFactory } from '../../src/application/shim/ports/task-client.port';
import { TaskService } from '../../src/application/shim/task/task-service';
import {
  ConnectView, CreateTaskInput, DeleteView, ExecInput, ExitView, KillInput, PidView, ProcessRef, ResizeInput, StateView, StatsView, UpdateInput,
} from '../../src/application/shim/task/task-messages';

/** A TaskClient that calls a TaskService in this process (no socket), recording the calls. */
export class InProcessTaskClient implements TaskClient {
  readonly calls: string[] = [];
  closed = false;

  constructor(private readonly service: TaskService) {}

  private async record<T>(name: string, run: () => T | Promise<T>): Promise<T> {
    this.calls.push(name);
    return run();
  }

  create(i: CreateTaskInput): Promise<{ pid: number }> { return this.record('create', () => this.service.create(i)); }
  start(r: ProcessRef): Promise<{ pid: number }> { return this.record('start', () => this.service.start(r)); }
  delete(r: ProcessRef): Promise<DeleteView> { return this.record('delete', () => this.service.delete(r)); }
  exec(i: ExecInput): Promise<void> { return this.record('exec', () => this.service.exec(i)); }
  state(r: ProcessRef): Promise<StateView> { return this.record('state', () => this.service.state(r)); }
  wait(r: ProcessRef): Promise<ExitView> { return this.record('wait', () => this.service.wait(r)); }
  kill(i: KillInput): Promise<void> { return this.record(`kill:${i.signal}`, () => this.service.kill(i)); }
  pause(id: string): Promise<void> { return this.record('pause', () => this.service.pause(id)); }
  resume(id: string): Promise<void> { return this.record('resume', () => this.service.resume(id)); }
  pids(id: string): Promise<PidView[]> { return this.record('pids', () => this.service.pids(id)); }
  closeIO(r: ProcessRef & { stdin: boolean }): Promise<void> { return this.record('closeIO', () => this.service.closeIO(r)); }
  resizePty(i: ResizeInput): Promise<void> { return this.record(`resize:${i.width}x${i.height}`, () => this.service.resizePty(i)); }
  update(i: UpdateInput): Promise<void> { return this.record('update', () => this.service.update(i)); }
  stats(id: string): Promise<StatsView> { return this.record('stats', () => this.service.stats(id)); }
  checkpoint(i: { id: string; path: string }): Promise<void> { return this.record('checkpoint', () => this.service.checkpoint(i)); }
  connect(id: string): Promise<ConnectView> { return this.record('connect', () => this.service.connect(id)); }
  shutdown(i: { id: string; now: boolean }): Promise<void> { return this.record('shutdown', () => this.service.shutdown(i.now)); }
  close(): void { this.closed = true; }
}

export class InProcessTaskClientFactory implements TaskClientFactory {
  readonly clients: InProcessTaskClient[] = [];

  constructor(private readonly service: TaskService) {}

  connect(): TaskClient {
    const client = new InProcessTaskClient(this.service);
    this.clients.push(client);
    return client;
  }
}
