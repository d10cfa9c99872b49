/**
 * mount(8)-style options split as mount(2) takes them: the flag words become MS_* bits,
 * everything else (overlay's lowerdir=..., say) the data string. The table is the one
 * containerd applies to a rootfs mount (mount/mount_linux.go parseMountOptions).
 */
const MS_RDONLY = 0x1;
const MS_NOSUID = 0x2;
const MS_NODEV = 0x4;
const MS_NOEXEC = 0x8;
const MS_SYNCHRONOUS = 0x10;
const MS_REMOUNT = 0x20;
const MS_MANDLOCK = 0x40;
const MS_DIRSYNC = 0x80;
const MS_NOATIME = 0x400;
const MS_NODIRATIME = 0x800;
const MS_BIND = 0x1000;
const MS_REC = 0x4000;
const MS_RELATIME = 0x200000;
const MS_STRICTATIME = 0x1000000;

/** [clear, bits]: a word that sets bits, or (clear) takes them away. */
const FLAGS: Record<string, readonly [boolean, number]> = {
  async: [true, MS_SYNCHRONOUS],
  atime: [true, MS_NOATIME],
  bind: [false, MS_BIND],
  defaults: [false, 0],
  dev: [true, MS_NODEV],
  diratime: [true, MS_NODIRATIME],
  dirsync: [false, MS_DIRSYNC],
  exec: [true, MS_NOEXEC],
  mand: [false, MS_MANDLOCK],
  noatime: [false, MS_NOATIME],
  nodev: [false, MS_NODEV],
  nodiratime: [false, MS_NODIRATIME],
  noexec: [false, MS_NOEXEC],
  nomand: [true, MS_MANDLOCK],
  norelatime: [true, MS_RELATIME],
  nostrictatime: [true, MS_STRICTATIME],
  nosuid: [false, MS_NOSUID],
  rbind: [false, MS_BIND | MS_REC],
  relatime: [false, MS_RELATIME],
  remount: [false, MS_REMOUNT],
  ro: [false, MS_RDONLY],
  rw: [true, MS_RDONLY],
  strictatime: [false, MS_STRICTATIME],
  suid: [true, MS_NOSUID],
  sync: [false, MS_SYNCHRONOUS],
};

export interface MountCall {
  readonly flags: number;
  readonly data: string;
}

export function parseMountOptions(options: readonly string[]): MountCall {
  let flags = 0;
  const data: string[] = [];
  for (const option of options) {
    const flag = FLAGS[option];
    if (flag === undefined) data.push(option);
    else if (flag[0]) flags &= ~flag[1];
    else flags |= flag[1];
  }
  return { flags, data: data.join(',') };
}

export const MNT_DETACH = 0x2;
