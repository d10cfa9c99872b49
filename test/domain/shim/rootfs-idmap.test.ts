import { idmappedLowers, idMapText, splitIdmapOptions } from '../../../src/domain/shim/rootfs-idmap';

const range = (containerID: number, hostID: number, size: number) => ({ containerID, hostID, size });

describe('uidmap=/gidmap= of a rootfs mount (containerd 2.x, a pod with hostUsers: false)', () => {
  it('leaves a mount without them as it is', () => {
    const options = ['index=off', 'lowerdir=/a:/b'];
    expect(splitIdmapOptions(options)).toEqual({ options });
  });

  it('splits them from the other options, as containerd IDMap.Marshal writes them', () => {
    const split = splitIdmapOptions([
      'uidmap=0:458752:65536',
      'gidmap=0:458752:65536,65536:1000000:1',
      'workdir=/w',
      'lowerdir=/l',
    ]);
    expect(split).toEqual({
      options: ['workdir=/w', 'lowerdir=/l'],
      idmap: {
        uidMappings: [range(0, 458752, 65536)],
        gidMappings: [range(0, 458752, 65536), range(65536, 1000000, 1)],
        text: 'uidmap=0:458752:65536 gidmap=0:458752:65536,65536:1000000:1',
      },
    });
  });

  it('refuses one without the other, and what the kernel or the syntax would refuse, naming it', () => {
    expect(splitIdmapOptions(['uidmap=0:1:1', 'rbind'])).toEqual({
      problem: "uidmap= without gidmap=: an idmapped mount maps both (containerd's snapshotters give both)",
    });
    expect(splitIdmapOptions(['gidmap=0:1:1']).problem).toMatch(/^gidmap= without uidmap=/);
    const problem = (uidmap: string) => splitIdmapOptions([`uidmap=${uidmap}`, 'gidmap=0:1:1']).problem;
    expect(problem('0:100000')).toBe('uidmap[0] "0:100000" is not containerID:hostID:size (whole numbers)');
    expect(problem('0:-1:5')).toMatch(/^uidmap\[0\] "0:-1:5" is not/);
    expect(problem('0:1:1,x')).toMatch(/^uidmap\[1\] "x" is not/);
    expect(problem('0:100000:0')).toBe('uidmap[0] (containerID 0, hostID 100000, size 0) maps no id');
    expect(problem('0:4294967295:2')).toMatch(/goes past id 4294967295$/);
    expect(problem('0:100000:10,5:200000:10')).toBe(
      'uidmap[1] (containerID 5, hostID 200000, size 10) overlaps uidmap[0]',
    );
    expect(problem(Array.from({ length: 341 }, (_, i) => `${i}:${1000 + i}:1`).join(','))).toBe(
      'uidmap has 341 ranges; the kernel takes at most 340',
    );
  });

  it('writes a mapping as /proc/<pid>/uid_map takes it', () => {
    expect(idMapText([range(0, 458752, 65536), range(65536, 1000000, 1)])).toBe('0 458752 65536\n65536 1000000 1\n');
  });
});

describe("an overlay's lower directories under one idmapped mount (containerd 2.1 doPrepareIDMappedOverlay)", () => {
  const root = '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots';

  it("idmaps the snapshots' directory and names each layer through it, lowerdir= last", () => {
    const lowers = idmappedLowers([
      'index=off',
      `lowerdir=${root}/12/fs:${root}/9/fs`,
      `upperdir=${root}/13/fs`,
      `workdir=${root}/13/work`,
    ]);
    if ('problem' in lowers) throw new Error(lowers.problem);
    expect(lowers.commonDir).toBe(root);
    expect(lowers.options('/b/.idmapped-lowers-x')).toEqual([
      'index=off',
      `upperdir=${root}/13/fs`,
      `workdir=${root}/13/work`,
      'lowerdir=/b/.idmapped-lowers-x/12/fs:/b/.idmapped-lowers-x/9/fs',
    ]);
  });

  it("takes one layer's parent, and a common prefix only up to a directory's end", () => {
    const one = idmappedLowers([`lowerdir=${root}/12/fs`]);
    if ('problem' in one) throw new Error(one.problem);
    expect(one.commonDir).toBe(`${root}/12`);
    expect(one.options('/t')).toEqual(['lowerdir=/t/fs']);
    const two = idmappedLowers(['lowerdir=/data/ab/fs:/data/abc/fs']);
    if ('problem' in two) throw new Error(two.problem);
    expect(two.commonDir).toBe('/data');
    expect(two.options('/t')).toEqual(['lowerdir=/t/ab/fs:/t/abc/fs']);
  });

  it('names what it cannot idmap: no lowerdir=, a relative one, layers sharing only /', () => {
    expect(idmappedLowers(['upperdir=/u'])).toEqual({ problem: 'an overlay without lowerdir=' });
    expect(idmappedLowers(['lowerdir=a/fs'])).toEqual({ problem: 'lowerdir= "a/fs" names a relative directory' });
    expect(idmappedLowers(['lowerdir=/a/fs:/b/fs'])).toEqual({
      problem: 'the lower directories "/a/fs:/b/fs" share no directory but /',
    });
  });
});
