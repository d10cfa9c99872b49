import { StateView, StatsView } from '../../../../../src/application/shim/task/task-messages';
import {
  CgroupV2Metrics,
  CPU_STAT_KEYS,
  MEMORY_STAT_KEYS,
  taskStatsOf,
} from '../../../../../src/domain/shim/task-stats';
import { io } from '../../../../../src/adapters/shim/wire/proto/generated/containerd/cgroups-v2';
import { toAny } from '../../../../../src/adapters/shim/wire/codec/proto-values';
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

/** A cgroup v2 reading: every figure distinct and set, so a field that went astray shows. */
function cgroupV2(): CgroupV2Metrics {
  const cpu = Object.fromEntries(CPU_STAT_KEYS.map((k, i) => [k, 100 + i])) as CgroupV2Metrics['cpu'];
  const stat = Object.fromEntries(MEMORY_STAT_KEYS.map((k, i) => [k, 1000 + i])) as Record<
    (typeof MEMORY_STAT_KEYS)[number],
    number
  >;
  return {
    pids: { current: 2, limit: 'max' },
    cpu,
    memory: {
      ...stat,
      usage: 1 << 20,
      usage_limit: 1 << 26,
      max_usage: 1 << 21,
      swap_usage: 4096,
      swap_limit: 'max',
      swap_max_usage: 8192,
    },
    memory_events: { low: 1, high: 2, max: 3, oom: 4, oom_kill: 5, oom_group_kill: 6 },
    io: [{ major: 8, minor: 16, rbytes: 10, wbytes: 20, rios: 30, wios: 40 }],
    pressure: {
      cpu: { some: { avg10: 1.5, avg60: 0.25, avg300: 0, total: 12345 } },
      memory: {
        some: { avg10: 0, avg60: 0, avg300: 0, total: 7 },
        full: { avg10: 0.01, avg60: 0, avg300: 0, total: 3 },
      },
    },
  };
}

type Field = bigint | Uint8Array;

/** Protobuf's wire format read by hand (varints and length-delimited fields only): field number -> values. */
function wire(bytes: Uint8Array): Map<number, Field[]> {
  const fields = new Map<number, Field[]>();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const type = key & 7;
    let value: Field;
    if (type === 0) value = varint();
    else if (type === 2) {
      const length = Number(varint());
      value = bytes.subarray(at, at + length);
      at += length;
    } else if (type === 1) {
      // A double (PSI's averages): its eight bytes, read as one.
      value = bytes.subarray(at, at + 8);
      at += 8;
    } else throw new Error(`wire type ${type}`);
    fields.set(key >> 3, [...(fields.get(key >> 3) ?? []), value]);
  }
  return fields;
}

function one(fields: Map<number, Field[]>, n: number): Field {
  const values = fields.get(n) ?? [];
  expect(values).toHaveLength(1);
  return values[0];
}

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
    const checkpoint = {
      id: 't',
      path: '/var/lib/cp',
      options: { typeUrl: 'containerd.runc.v1.CheckpointOptions', value: Uint8Array.of(8, 1) },
    };
    expect(codec.Checkpoint.decodeRequest(codec.Checkpoint.encodeRequest(checkpoint))).toEqual(checkpoint);
    const plain = { id: 't', path: '/var/lib/cp' };
    expect(codec.Checkpoint.decodeRequest(codec.Checkpoint.encodeRequest(plain))).toEqual({
      ...plain,
      options: undefined,
    });
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

  it('answers containerd io.containerd.cgroups.v2.Metrics for a cgroup v2 reading, and reads it back', () => {
    const ctr = taskCodec('containerd');
    const view: StatsView = { ...taskStatsOf(cgroupV2()), runtime: 'runc' };
    const statsReply = task.v2.StatsResponse.deserialize(ctr.Stats.encodeReply(view));
    expect(statsReply.stats.type_url).toBe('io.containerd.cgroups.v2.Metrics');
    expect(codec.Stats.decodeReply(ctr.Stats.encodeReply(view))).toEqual({ ...view, runtime: '' });
    const { memory_events: _events, ...withoutEvents } = cgroupV2();
    const bare: StatsView = { ...taskStatsOf(withoutEvents), runtime: 'runc' };
    expect(codec.Stats.decodeReply(ctr.Stats.encodeReply(bare))).toEqual({ ...bare, runtime: '' });
  });

  it("puts each cgroup v2 figure under containerd's field number (cgroup2/stats/metrics.proto), max as 2^64 - 1", () => {
    const ctr = taskCodec('containerd');
    const payload = task.v2.StatsResponse.deserialize(
      ctr.Stats.encodeReply({ ...taskStatsOf(cgroupV2()), runtime: 'runc' }),
    ).stats.value;
    const metrics = wire(payload);
    expect([...metrics.keys()].sort((a, b) => a - b)).toEqual([1, 2, 4, 6, 8]);
    const pids = wire(one(metrics, 1) as Uint8Array);
    expect([one(pids, 1), one(pids, 2)]).toEqual([2n, 2n ** 64n - 1n]);
    const cpu = wire(one(metrics, 2) as Uint8Array);
    // usage_usec=1 user_usec=2 system_usec=3 nr_periods=4 nr_throttled=5 throttled_usec=6 nr_bursts=8 burst_usec=9
    expect([1, 2, 3, 4, 5, 6, 8, 9].map((n) => one(cpu, n))).toEqual([100n, 101n, 102n, 103n, 104n, 105n, 106n, 107n]);
    const memory = wire(one(metrics, 4) as Uint8Array);
    // memory.stat's keys in containerd's order are fields 1..31, then 39..42 (workingset_*_anon/file)
    const statFields = [...Array.from({ length: 31 }, (_, i) => i + 1), 39, 40, 41, 42];
    expect(statFields.map((n) => one(memory, n))).toEqual(MEMORY_STAT_KEYS.map((_, i) => BigInt(1000 + i)));
    // usage=32 usage_limit=33 swap_usage=34 swap_limit=35 max_usage=36 swap_max_usage=37
    expect([32, 33, 34, 35, 36, 37].map((n) => one(memory, n))).toEqual([
      2n ** 20n,
      2n ** 26n,
      4096n,
      2n ** 64n - 1n,
      2n ** 21n,
      8192n,
    ]);
    const ioStat = wire(one(metrics, 6) as Uint8Array);
    const entry = wire(one(ioStat, 1) as Uint8Array);
    expect([1, 2, 3, 4, 5, 6].map((n) => one(entry, n))).toEqual([8n, 16n, 10n, 20n, 30n, 40n]);
    const events = wire(one(metrics, 8) as Uint8Array);
    expect([1, 2, 3, 4, 5, 6].map((n) => one(events, n))).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    // PSI: cpu.psi=7, memory.psi=38, io.psi=2 (none read here); PSIStats{1 some, 2 full}, PSIData{4 total}.
    const cpuSome = wire(one(wire(one(cpu, 7) as Uint8Array), 1) as Uint8Array);
    expect(one(cpuSome, 4)).toBe(12345n);
    expect(Buffer.from(one(cpuSome, 1) as Uint8Array).readDoubleLE(0)).toBe(1.5);
    const memoryPsi = wire(one(memory, 38) as Uint8Array);
    expect(one(wire(one(memoryPsi, 2) as Uint8Array), 4)).toBe(3n);
    expect(ioStat.has(2)).toBe(false);
  });

  it("gives skiff's clients skiff.v1.TaskStats, the cgroup v2 reading's summary", () => {
    const view: StatsView = { ...taskStatsOf(cgroupV2()), runtime: 'runc' };
    const reply = task.v2.StatsResponse.deserialize(codec.Stats.encodeReply(view));
    expect(reply.stats.type_url).toBe('skiff.v1.TaskStats');
    const { cgroupV2: _reading, ...summary } = view;
    expect(codec.Stats.decodeReply(codec.Stats.encodeReply(view))).toEqual(summary);
    expect(summary).toMatchObject({ cpuUsageNs: 100_000, memoryUsageBytes: 1 << 20, memoryLimitBytes: 1 << 26 });
  });

  it('reads a v2 Metrics with parts left out (containerd leaves memory_events out without memory.events)', () => {
    const cg2 = io.containerd.cgroups.v2;
    const m = new cg2.Metrics({ pids: new cg2.PidsStat({ current: 1, limit: '18446744073709551615' }) });
    const reply = new task.v2.StatsResponse({
      stats: toAny({ typeUrl: 'io.containerd.cgroups.v2.Metrics', value: m.serialize() }),
    }).serialize();
    const view = codec.Stats.decodeReply(Buffer.from(reply));
    expect(view).toMatchObject({ pidsCurrent: 1, pidsLimit: 0, cpuUsageNs: 0, memoryUsageBytes: 0, runtime: '' });
    expect(view.cgroupV2).not.toHaveProperty('memory_events');
    expect(view.cgroupV2?.pids.limit).toBe('max');
    expect(view.cgroupV2?.io).toEqual([]);
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
