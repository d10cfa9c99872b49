'use strict';
// Where a private containerd keeps everything: one directory per instance, so removing it
// (after unmounting what is mounted under it) removes the instance.
const path = require('node:path');

/** The longest unix socket path Linux accepts (sun_path is 108 bytes with the NUL; 106 keeps a margin). */
const MAX_SOCKET_PATH = 106;
/** Where containerd-shim-runc-v2 puts its sockets and runc state, whatever containerd's own state dir is. */
const RUNC_SHIM_RUN = '/run/containerd';

/** The paths of the instance living in `dir`. */
function layout(dir) {
  return {
    dir,
    config: path.join(dir, 'config.toml'),
    log: path.join(dir, 'containerd.log'),
    owner: path.join(dir, 'owner.json'),
    /** The namespaces ctr was run in (so that a teardown without a daemon knows them too). */
    namespaces: path.join(dir, 'namespaces.json'),
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    address: path.join(dir, 'c.sock'),
    ttrpcAddress: path.join(dir, 'c.sock.ttrpc'),
    fifoDir: path.join(dir, 'fifo'),
    images: path.join(dir, 'images.tar'),
    cniBinDir: path.join(dir, 'cni/bin'),
    cniConfDir: path.join(dir, 'cni/net.d'),
    /** The task bundles: <bundles>/<namespace>/<id> (config.json, address, rootfs, ...). */
    bundles: path.join(dir, 'state/io.containerd.runtime.v2.task'),
  };
}

module.exports = { layout, MAX_SOCKET_PATH, RUNC_SHIM_RUN };
