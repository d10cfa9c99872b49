import { IdRange, idRangesProblem } from './oci-spec';

/**
 * The uidmap=/gidmap= options of a rootfs mount (docs/cri.md, "User namespaces"): containerd
 * 2.x's overlayfs snapshotter adds them, from the snapshot's `containerd.io/snapshot/uidmapping`
 * and `gidmapping` labels, to the mounts of a container in a pod with hostUsers: false. The
 * mount is then made idmapped with that mapping, as containerd's runc shim does
 * (core/mount/mount_linux.go): the files, owned by the host's ids on disk, are the container's
 * own root's inside its user namespace.
 */
export interface RootfsIdmap {
  readonly uidMappings: readonly IdRange[];
  readonly gidMappings: readonly IdRange[];
  /** The options as given, for messages: `uidmap=... gidmap=...`. */
  readonly text: string;
}

export type IdmapOptions =
  /** The mount's options without uidmap= and gidmap=, and its mapping if it asks for one. */
  | { readonly options: readonly string[]; readonly idmap?: RootfsIdmap; readonly problem?: undefined }
  | { readonly problem: string };

/**
 * Splits uidmap= and gidmap= (each `containerID:hostID:size[,...]`, as containerd's
 * IDMap.Marshal writes a label) from a rootfs mount's other options. The last of each counts,
 * as in containerd's parseMountOptions. One without the other is a problem: containerd's runc
 * shim then mounts without any mapping, and the container would find its rootfs owned by
 * nobody; its snapshotters always give both.
 */
export function splitIdmapOptions(options: readonly string[]): IdmapOptions {
  let uidmap: string | undefined;
  let gidmap: string | undefined;
  const rest: string[] = [];
  for (const option of options) {
    if (option.startsWith('uidmap=')) uidmap = option.slice('uidmap='.length);
    else if (option.startsWith('gidmap=')) gidmap = option.slice('gidmap='.length);
    else rest.push(option);
  }
  if (uidmap === undefined && gidmap === undefined) return { options };
  if (uidmap === undefined || gidmap === undefined)
    return {
      problem: `${uidmap === undefined ? 'gidmap=' : 'uidmap='} without ${uidmap === undefined ? 'uidmap=' : 'gidmap='}: an idmapped mount maps both (containerd's snapshotters give both)`,
    };
  const uid = parseIdRanges(uidmap, 'uidmap');
  if (typeof uid === 'string') return { problem: uid };
  const gid = parseIdRanges(gidmap, 'gidmap');
  if (typeof gid === 'string') return { problem: gid };
  return {
    options: rest,
    idmap: { uidMappings: uid, gidMappings: gid, text: `uidmap=${uidmap} gidmap=${gidmap}` },
  };
}

const NUMBER = /^(0|[1-9][0-9]{0,9})$/;

/** `containerID:hostID:size[,...]` as ranges, or why the kernel (or the syntax) refuses it. */
function parseIdRanges(text: string, field: string): IdRange[] | string {
  const ranges: IdRange[] = [];
  for (const [i, part] of text.split(',').entries()) {
    const numbers = part.split(':');
    if (numbers.length !== 3 || !numbers.every((n) => NUMBER.test(n)))
      return `${field}[${i}] ${JSON.stringify(part)} is not containerID:hostID:size (whole numbers)`;
    const [containerID, hostID, size] = numbers.map(Number);
    ranges.push({ containerID, hostID, size });
  }
  return idRangesProblem(ranges, field) ?? ranges;
}

/** A mapping as /proc/<pid>/uid_map takes it: one `inside outside count` line per range. */
export function idMapText(ranges: readonly IdRange[]): string {
  return ranges.map((r) => `${r.containerID} ${r.hostID} ${r.size}\n`).join('');
}

/** An overlay's lower directories moved under one idmapped mount of the directory they share. */
export interface IdmappedLowers {
  /** The directory every lower directory is under: the one mount made idmapped. */
  readonly commonDir: string;
  /** The options with lowerdir= naming the same directories under `at` instead. */
  options(at: string): string[];
}

/**
 * Where an overlay's lower directories are, for one idmapped mount of the directory they
 * share (containerd 2.1's doPrepareIDMappedOverlay: one read-only idmapped mount of that
 * directory, then lowerdir= through it; overlayfs takes idmapped lower layers, never an
 * idmapped overlay). The shared directory is the parent of the longest common prefix, as
 * containerd's getCommonDirectory finds it; `/` or none is a problem.
 */
export function idmappedLowers(options: readonly string[]): IdmappedLowers | { problem: string } {
  const index = options.findIndex((o) => o.startsWith('lowerdir='));
  if (index < 0) return { problem: 'an overlay without lowerdir=' };
  const lowers = options[index].slice('lowerdir='.length).split(':');
  if (lowers.some((dir) => !dir.startsWith('/')))
    return { problem: `lowerdir= ${JSON.stringify(lowers.join(':'))} names a relative directory` };
  let prefix = lowers[0];
  for (const dir of lowers.slice(1)) {
    let n = 0;
    while (n < prefix.length && n < dir.length && prefix[n] === dir[n]) n++;
    prefix = prefix.slice(0, n);
  }
  const slash = prefix.lastIndexOf('/');
  const commonDir = slash <= 0 ? '/' : prefix.slice(0, slash);
  if (commonDir === '/')
    return { problem: `the lower directories ${JSON.stringify(lowers.join(':'))} share no directory but /` };
  return {
    commonDir,
    options: (at) => [
      ...options.slice(0, index),
      ...options.slice(index + 1),
      `lowerdir=${lowers.map((dir) => at + dir.slice(commonDir.length)).join(':')}`,
    ],
  };
}
