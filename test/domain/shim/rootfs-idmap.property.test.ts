import fc from 'fast-check';
import { idMapText, idmappedLowers, splitIdmapOptions } from '../../../src/domain/shim/rootfs-idmap';
import { PROPERTY_BUDGET } from '../../support/property';

/**
 * A rootfs mount's options come from containerd's snapshotter (docs/cri.md, "User namespaces"):
 * bytes the serving process did not write. Whatever they hold, reading them answers a typed
 * result or one problem line (control characters escaped, as every error of skiff's), never a
 * throw; a mapping it accepts is one the kernel's uid_map syntax takes, the ranges as given.
 */

/** A character below space, or DEL, as it came: what a one-line error must never hold. */
const hasRawControl = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const ID_LIMIT = 2 ** 32;

/** Options as a snapshotter might give them, uidmap= and gidmap= often among them. */
const text = fc.string({ unit: 'binary' });
const option = fc.oneof(
  text,
  text.map((s) => `uidmap=${s}`),
  text.map((s) => `gidmap=${s}`),
  fc.constantFrom('ro', 'index=off', 'userxattr', 'lowerdir=/a/1:/a/2', 'uidmap=0:1000:65536', 'gidmap=0:1000:65536'),
);

const range = fc.record({
  containerID: fc.nat(ID_LIMIT - 1),
  hostID: fc.nat(ID_LIMIT - 1),
  size: fc.nat(ID_LIMIT - 1),
});

describe('uidmap= and gidmap= of a rootfs mount, for any options', () => {
  it('answers a mapping or one problem line, never a throw, and keeps the other options in order', () => {
    fc.assert(
      fc.property(fc.array(option, { maxLength: 8 }), (options) => {
        const split = splitIdmapOptions(options);
        if (split.problem !== undefined) {
          expect(hasRawControl(split.problem)).toBe(false);
          return;
        }
        const others = options.filter((o) => !o.startsWith('uidmap=') && !o.startsWith('gidmap='));
        expect(split.options).toEqual(split.idmap === undefined ? options : others);
        for (const ranges of split.idmap ? [split.idmap.uidMappings, split.idmap.gidMappings] : []) {
          expect(ranges.length).toBeGreaterThan(0);
          for (const r of ranges) {
            expect(r.size).toBeGreaterThan(0);
            expect(r.containerID + r.size).toBeLessThanOrEqual(ID_LIMIT);
            expect(r.hostID + r.size).toBeLessThanOrEqual(ID_LIMIT);
          }
        }
      }),
      PROPERTY_BUDGET,
    );
  });

  it('reads back the ranges a mapping was written from, as uid_map lines, or names why the kernel refuses them', () => {
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 6 }), (ranges) => {
        const text = ranges.map((r) => `${r.containerID}:${r.hostID}:${r.size}`).join(',');
        const split = splitIdmapOptions([`uidmap=${text}`, `gidmap=${text}`]);
        if (split.problem !== undefined) {
          expect(split.problem).toMatch(/maps no id|goes past id|overlaps|at most/);
          return;
        }
        expect(idMapText(split.idmap?.uidMappings ?? [])).toBe(
          ranges.map((r) => `${r.containerID} ${r.hostID} ${r.size}\n`).join(''),
        );
      }),
      PROPERTY_BUDGET,
    );
  });
});

describe("an overlay's lower directories, for any lowerdir=", () => {
  it('finds a directory every lower is under and rewrites each under the idmapped one, or names the problem', () => {
    const dir = fc
      .array(fc.constantFrom('a', 'b', 'snap', '1', '2', '..', '', 'x\ny'), { maxLength: 4 })
      .map((p) => p.join('/'));
    const lowers = fc.array(
      fc.oneof(
        dir.map((d) => `/var/snapshots/${d}`),
        dir.map((d) => `/${d}`),
        dir,
      ),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(lowers, fc.array(text, { maxLength: 3 }), (dirs, extra) => {
        const options = [...extra.filter((o) => !o.startsWith('lowerdir=')), `lowerdir=${dirs.join(':')}`];
        const found = idmappedLowers(options);
        if ('problem' in found) {
          expect(hasRawControl(found.problem)).toBe(false);
          return;
        }
        expect(found.commonDir.startsWith('/')).toBe(true);
        expect(found.commonDir).not.toBe('/');
        for (const d of dirs) expect(d.startsWith(`${found.commonDir}/`)).toBe(true);
        const moved = found.options('/at');
        const lowerdir = moved.find((o) => o.startsWith('lowerdir='));
        expect(lowerdir).toBe(`lowerdir=${dirs.map((d) => `/at${d.slice(found.commonDir.length)}`).join(':')}`);
        expect(moved.filter((o) => !o.startsWith('lowerdir='))).toEqual(options.slice(0, -1));
      }),
      PROPERTY_BUDGET,
    );
  });
});
