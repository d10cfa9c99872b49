import { NO_POD_FIELDS, procSysctlKey, sandboxExitStatus, sandboxSpecOf } from '../../../src/domain/shim/sandbox';

/** The sandbox process's spec as the pause container's is set up (docs/sandbox-api.md, docs/cri.md). */
describe('sandboxSpecOf', () => {
  it('a pod with a network of its own: that network namespace, its hostname, its own PID and IPC namespaces', () => {
    const spec = sandboxSpecOf('p', '/run/netns/cni-1', { ...NO_POD_FIELDS, hostname: 'web-0', pid: 'container' });
    expect(spec).toEqual({
      id: 'p',
      netns: '/run/netns/cni-1',
      hostname: 'web-0',
      ownPid: true,
      ownIpc: true,
      sysctls: [],
    });
  });

  it("a pod of the node's network keeps the node's UTS namespace, as the pause container does; the node's PID and IPC when asked", () => {
    const spec = sandboxSpecOf('p', '', {
      ...NO_POD_FIELDS,
      network: 'node',
      hostname: 'ignored',
      pid: 'node',
      ipc: 'node',
    });
    expect(spec).toEqual({ id: 'p', ownPid: false, ownIpc: false, sysctls: [] });
  });

  it('refuses a user namespace, a network of its own with no namespace named, and what is no sysctl name', () => {
    expect(() => sandboxSpecOf('p', '/n', { ...NO_POD_FIELDS, userns: 'pod' })).toThrow(/sandboxer = "podsandbox"/);
    expect(() => sandboxSpecOf('p', '', NO_POD_FIELDS)).toThrow(/named no network namespace/);
    for (const name of ['../x', 'net//ipv4', 'kernel', 'a..b', '', 'net.ipv4.', '/net/ipv4', 'net ipv4'])
      expect(() => sandboxSpecOf('p', '/n', { ...NO_POD_FIELDS, sysctls: [[name, '1']] })).toThrow(
        /is not a sysctl name/,
      );
    expect(
      sandboxSpecOf('p', '/n', { ...NO_POD_FIELDS, sysctls: [['net.ipv4.ping_group_range', '0 2147483647']] }).sysctls,
    ).toEqual([['net.ipv4.ping_group_range', '0 2147483647']]);
  });
});

describe('sandboxExitStatus', () => {
  it('is the exit code, or 128 + the signal that ended it', () => {
    expect(sandboxExitStatus({ code: 3, signal: null })).toBe(3);
    expect(sandboxExitStatus({ code: null, signal: 9 })).toBe(137);
  });

  it('takes a sysctl named either way Kubernetes writes it, as the path /proc/sys has', () => {
    const named = (name: string) => sandboxSpecOf('p', '/n', { ...NO_POD_FIELDS, sysctls: [[name, '1']] }).sysctls;
    expect(named('net/ipv4/ip_forward')).toEqual([['net/ipv4/ip_forward', '1']]);
    expect(named('net.ipv4.conf.eth0/100.rp_filter')).toEqual([['net.ipv4.conf.eth0/100.rp_filter', '1']]);
    expect(procSysctlKey('net.ipv4.ip_forward')).toBe('net.ipv4.ip_forward');
    expect(procSysctlKey('net/ipv4/conf/eth0.100/rp_filter')).toBe('net/ipv4/conf/eth0.100/rp_filter');
    expect(procSysctlKey('net.ipv4.conf.eth0/100.rp_filter')).toBe('net/ipv4/conf/eth0.100/rp_filter');
  });
});
