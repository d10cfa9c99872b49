#!/usr/bin/env node
'use strict';
// A registry stand-in: the pull side of the OCI distribution API, over plain HTTP on
// 127.0.0.1, serving the images of an OCI image layout directory (the archive
// scripts/busybox-image.js builds, unpacked). The VM bed's guests have no network, and
// containerd 2.1's CRI restore from a checkpoint archive pulls the checkpoint's base image by
// its NAME@DIGEST first (CRImportCheckpoint, docs/cri.md): an image pulled from this stand-in
// has such a name, and containerd's resolvers speak plain HTTP to `localhost:<port>`.
// Spec: https://github.com/opencontainers/distribution-spec/blob/v1.0.1/spec.md (pull only).
//
//   node scripts/registry-stand-in.js <layout-dir> [port]
//
// prints `listening on 127.0.0.1:<port>` once it serves (port 0, the default, picks a free
// one); SIGTERM ends it. An image named `docker.io/library/skiff-busybox:latest` in the
// layout's index.json is served as `skiff-busybox:latest` (pull localhost:<port>/skiff-busybox:latest).
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

/** A reference's repository path and tag, the registry's host and docker.io's `library/` dropped. */
function repositoryOf(name) {
  const slash = name.indexOf('/');
  const first = name.slice(0, slash);
  // The first component is a registry host when it has a dot or a port, or is localhost.
  let rest = slash > 0 && (/[.:]/.test(first) || first === 'localhost') ? name.slice(slash + 1) : name;
  if (first === 'docker.io' && rest.startsWith('library/')) rest = rest.slice('library/'.length);
  const colon = rest.lastIndexOf(':');
  return { repository: rest.slice(0, colon), tag: rest.slice(colon + 1) };
}

/**
 * The layout's images: repository -> { tags: tag -> manifest descriptor, manifests: digest ->
 * descriptor }. Names come from the index's `io.containerd.image.name` (what `ctr image import`
 * reads) or `org.opencontainers.image.ref.name` annotations.
 */
function layoutImages(dir) {
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
  const repos = new Map();
  for (const desc of index.manifests ?? []) {
    const name =
      desc.annotations?.['io.containerd.image.name'] ?? desc.annotations?.['org.opencontainers.image.ref.name'];
    if (name === undefined || !name.includes(':')) continue;
    const { repository, tag } = repositoryOf(name);
    const repo = repos.get(repository) ?? { tags: new Map(), manifests: new Map() };
    repo.tags.set(tag, desc);
    repo.manifests.set(desc.digest, desc);
    repos.set(repository, repo);
  }
  return repos;
}

/** The registry's error JSON (spec: "Error Codes"). */
function refuse(res, status, code, message, detail) {
  const body = JSON.stringify({ errors: [{ code, message, detail }] });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The blob's bytes when the layout has it and they are what its digest says. */
function readBlob(dir, digest) {
  const match = /^sha256:([0-9a-f]{64})$/.exec(digest);
  if (match === null) return undefined;
  let data;
  try {
    data = fs.readFileSync(path.join(dir, 'blobs', 'sha256', match[1]));
  } catch {
    return undefined;
  }
  return createHash('sha256').update(data).digest('hex') === match[1] ? data : undefined;
}

/** Sends `data` whole, or from a `Range: bytes=N-[M]` (containerd resumes an interrupted fetch so). */
function send(req, res, data, headers) {
  let body = data;
  let status = 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range !== null && Number(range[1]) < data.length) {
    const end = range[2] === '' ? data.length - 1 : Math.min(Number(range[2]), data.length - 1);
    body = data.subarray(Number(range[1]), end + 1);
    status = 206;
    headers['Content-Range'] = `bytes ${range[1]}-${end}/${data.length}`;
  }
  res.writeHead(status, { ...headers, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The request handler for the layout in `dir`. */
function handler(dir) {
  const repos = layoutImages(dir);
  return (req, res) => {
    res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
    const url = new URL(req.url, 'http://stand-in');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'UNSUPPORTED', 'the operation is unsupported', 'a read-only stand-in: pull only');
    if (url.pathname === '/v2/' || url.pathname === '/v2') return send(req, res, Buffer.from('{}'), json());
    const route = /^\/v2\/(.+)\/(manifests|blobs|tags)\/([^/]+)$/.exec(url.pathname);
    if (route === null) return refuse(res, 404, 'UNSUPPORTED', 'the operation is unsupported', url.pathname);
    const [, name, kind, ref] = route;
    const repo = repos.get(name);
    if (repo === undefined) return refuse(res, 404, 'NAME_UNKNOWN', 'repository name not known to registry', { name });
    if (kind === 'tags') {
      if (ref !== 'list') return refuse(res, 404, 'UNSUPPORTED', 'the operation is unsupported', url.pathname);
      return send(req, res, Buffer.from(JSON.stringify({ name, tags: [...repo.tags.keys()].sort() })), json());
    }
    if (kind === 'manifests') {
      // By tag or by digest; the manifest's own media type, as a registry stores it.
      const desc = repo.tags.get(ref) ?? repo.manifests.get(ref);
      const data = desc && readBlob(dir, desc.digest);
      if (data === undefined) return refuse(res, 404, 'MANIFEST_UNKNOWN', 'manifest unknown', { name, reference: ref });
      return send(req, res, data, { 'Content-Type': desc.mediaType, 'Docker-Content-Digest': desc.digest });
    }
    // A blob of the layout, whichever repository names it (the layout shares one layer between images).
    const data = readBlob(dir, ref);
    if (data === undefined) return refuse(res, 404, 'BLOB_UNKNOWN', 'blob unknown to registry', { digest: ref });
    return send(req, res, data, { 'Content-Type': 'application/octet-stream', 'Docker-Content-Digest': ref });
  };
}

function json() {
  return { 'Content-Type': 'application/json' };
}

/** Serves the layout in `dir` on 127.0.0.1:`port`; resolves { port, server } once it listens. */
function serveLayout(dir, port = 0) {
  const server = http.createServer(handler(dir));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ port: server.address().port, server }));
  });
}

module.exports = { layoutImages, repositoryOf, serveLayout };

if (require.main === module) {
  const [dir, port = '0'] = process.argv.slice(2);
  if (dir === undefined) {
    process.stderr.write('usage: node scripts/registry-stand-in.js <layout-dir> [port]\n');
    process.exit(2);
  }
  serveLayout(path.resolve(dir), Number(port)).then(
    ({ port: bound, server }) => {
      process.on('SIGTERM', () => {
        server.close(() => process.exit(0));
        server.closeAllConnections();
      });
      process.stdout.write(`listening on 127.0.0.1:${bound}\n`);
    },
    (err) => {
      process.stderr.write(`registry stand-in: ${err.message}\n`);
      process.exit(1);
    },
  );
}
