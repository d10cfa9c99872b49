import { StateView, StatsView } from '../../../../../src/application/shim/task/task-messages';
import { statusName } from '../../../../../src/adapters/shim/wire/codec/process-status';
import { taskCodec } from '../../../../../src/adapters/shim/wire/codec/task-codec';
import { v1 } from '../../../../../src/adapters/shim/wire/proto/generated/v1/types/task';
import { task } from '../../../../../src/adapters/shim/wire/proto/generated/task/v2/shim';

const STATS: StatsView = {
  cpuUsageNs: 30,
  cpuUserNs: 20,
  cpuSystemNs: 10,
  memoryRssBytes: 4096,
  memoryUsageBytes: 8192,
  memoryLimitBytes: 65536,
  pidsCurrent: 2,
  pidsLimit: 10,
  runtime: 'runc',
};

const STATE: StateView = {
  id: 'web',
  execId: 'sh',
  bundle: '/b',
  pid: 42,
  status: 'stopped',
  stdin: '',
  stdout: '/o',
  stderr: '',
  terminal: false,
  exitStatus: 3,
  exitedAt: new Date('2024-05-01T10:00:00.123Z'),
};

describe('the task codec, both ways', () => {
  const codec = taskCodec();

  it('gives a server the request a client encoded, and the client the reply the server encoded', () => {
    const create = {
      id: 'web',
      bundle: '/b',
      rootfs: [{ type: 'overlay', source: 'o', target: '', options: ['ro'] }],
      terminal: false,
      stdin: '',
      stdout: '/o',
      stderr: '',
      checkpoint: '',
      parentCheckpoint: '',
      options: { typeUrl: 'containerd.runc.v1.Options', value: Uint8Array.of(1, 2) },
    };
    expect(codec.Create.decodeRequest(codec.Create.encodeRequest(create))).toEqual(create);
    expect(codec.State.decodeReply(codec.State.encodeReply(STATE))).toEqual(STATE);
    expect(codec.Stats.decodeReply(codec.Stats.encodeReply(STATS))).toEqual(STATS);
    const pids = [
      { pid: 1, execId: undefined },
      { pid: 7, execId: 'sh' },
    ];
    expect(codec.Pids.decodeReply(codec.Pids.encodeReply(pids))).toEqual(pids);
  });

  it('keeps an unset exit time unset', () => {
    const running = { ...STATE, status: 'running' as const, exitStatus: 0, exitedAt: undefined };
    const message = task.v2.StateResponse.deserialize(codec.State.encodeReply(running));
    expect(message.has_exited_at).toBe(false);
    expect(codec.State.decodeReply(codec.State.encodeReply(running)).exitedAt).toBeUndefined();
  });

  it('reads the payloads it writes for containerd (ctr task ps, ctr task metrics) too', () => {
    const ctr = taskCodec('containerd');
    const pidsReply = task.v2.PidsResponse.deserialize(ctr.Pids.encodeReply([{ pid: 7, execId: 'sh' }]));
    expect(pidsReply.processes[0].info.type_url).toBe('containerd.runc.v1.ProcessDetails');
    expect(codec.Pids.decodeReply(ctr.Pids.encodeReply([{ pid: 7, execId: 'sh' }]))).toEqual([
      { pid: 7, execId: 'sh' },
    ]);
    const statsReply = task.v2.StatsResponse.deserialize(ctr.Stats.encodeReply(STATS));
    expect(statsReply.stats.type_url).toBe('io.containerd.cgroups.v1.Metrics');
    expect(codec.Stats.decodeReply(ctr.Stats.encodeReply(STATS))).toEqual({ ...STATS, runtime: '' });
  });

  it('has one status map: each status goes out and comes back, PAUSING reads as paused', () => {
    for (const status of ['created', 'running', 'paused', 'stopped'] as const) {
      expect(codec.State.decodeReply(codec.State.encodeReply({ ...STATE, status })).status).toBe(status);
    }
    const pausing = new task.v2.StateResponse({ status: v1.types.Status.PAUSING }).serialize();
    expect(codec.State.decodeReply(Buffer.from(pausing)).status).toBe('paused');
    expect(statusName('deleted')).toBe('UNKNOWN');
    expect(statusName('running')).toBe('RUNNING');
  });
});
