'use strict';
// A minimal ustar writer (directories, regular files, symlinks): enough for OCI image
// layers and image-layout archives, without a dependency. Entries are written as given,
// with a fixed owner (0:0) and mtime, so the same input always gives the same bytes
// (and so the same image digests, which lets containerd skip a re-import).
// Format: POSIX.1-1988 ustar (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06).

const BLOCK = 512;

/** Writes `value` as a zero-padded octal field of `width` bytes (NUL-terminated). */
function octal(header, offset, width, value) {
  header.write(value.toString(8).padStart(width - 1, '0') + '\0', offset, width, 'ascii');
}

/** Splits a path into ustar's prefix (155) and name (100) fields. */
function splitName(name) {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  const cut = name.lastIndexOf('/', 155);
  if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100)
    throw new Error(`tar: path too long for ustar: ${name}`);
  return { prefix: name.slice(0, cut), base: name.slice(cut + 1) };
}

function header({ name, mode, size = 0, type, linkname = '', mtime = 0 }) {
  const h = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(name);
  h.write(base, 0, 100, 'utf8');
  octal(h, 100, 8, mode);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, mtime);
  h.fill(' ', 148, 156);
  h.write(type, 156, 1, 'ascii');
  h.write(linkname, 157, 100, 'utf8');
  h.write('ustar\0' + '00', 257, 8, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

/**
 * Builds a tar archive in memory. Entries: { dir: 'a/b', mode? }, { file: 'a/f', data, mode? },
 * { symlink: 'a/l', target, mode? }. Directory names get their trailing slash here.
 */
function tar(entries) {
  const parts = [];
  for (const e of entries) {
    if (e.dir !== undefined) {
      parts.push(header({ name: e.dir.replace(/\/?$/, '/'), mode: e.mode ?? 0o755, type: '5' }));
    } else if (e.symlink !== undefined) {
      parts.push(header({ name: e.symlink, mode: e.mode ?? 0o777, type: '2', linkname: e.target }));
    } else {
      const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data);
      parts.push(header({ name: e.file, mode: e.mode ?? 0o644, size: data.length, type: '0' }), data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

module.exports = { tar };
