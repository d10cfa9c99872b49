import { hasSystemdCgroupsPath } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-runtime';

/**
 * Which cgroup driver runc is told to use, from the spec containerd's CRI plugin wrote. This
 * machine has no systemd, so runc's --systemd-cgroup itself is not run here.
 */
describe('the cgroup driver a spec asks for (runc --systemd-cgroup)', () => {
  const spec = (cgroupsPath?: unknown) => ({ linux: cgroupsPath === undefined ? {} : { cgroupsPath } });

  it('is systemd for a slice:prefix:name path, as the CRI plugin writes under a systemd slice', () => {
    expect(hasSystemdCgroupsPath(spec('kubepods-besteffort-pod1234.slice:cri-containerd:abc'))).toBe(true);
    expect(hasSystemdCgroupsPath(spec('system.slice:skiff:web'))).toBe(true);
  });

  it('is cgroupfs for an absolute path, none, or anything else', () => {
    expect(hasSystemdCgroupsPath(spec('/k8s.io/abc'))).toBe(false);
    expect(hasSystemdCgroupsPath(spec('/kubepods/besteffort/pod1234/abc'))).toBe(false);
    expect(hasSystemdCgroupsPath(spec('/odd:path:here'))).toBe(false);
    expect(hasSystemdCgroupsPath(spec('relative/path'))).toBe(false);
    expect(hasSystemdCgroupsPath(spec())).toBe(false);
    expect(hasSystemdCgroupsPath({})).toBe(false);
    expect(hasSystemdCgroupsPath(spec(42))).toBe(false);
  });
});
