import { get } from 'node:http';
import { readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { WebSocketClient } from './websocket';
import { waitFor } from './wait-for';

const procs = require('../../scripts/containerd/runtime-processes.js') as { rssBytes(pid: number): number };
const procfs = require('../../scripts/containerd/procfs.js') as { socketInodes(pid: number): Set<string> };

/**
 * The memory a process really holds, for leak checks: a garbage-collected runtime's RSS
 * grows until its collector runs, so for a Node process it is the JS heap in use after a
 * full collection (asked through its inspector, activated with SIGUSR1 and listening on
 * loopback; start it with NODE_OPTIONS=--inspect-port=0 so that the port is a free one),
 * and for any other process its RSS.
 */
export async function liveMemoryBytes(pid: number): Promise<number> {
  if (!basename(readlinkSync(`/proc/${pid}/exe`)).startsWith('node')) return procs.rssBytes(pid);
  const port = await inspectorPort(pid);
  const [target] = JSON.parse(await httpGet(`http://127.0.0.1:${port}/json/list`)) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = await WebSocketClient.connect(target.webSocketDebuggerUrl);
  try {
    await call(ws, 1, 'HeapProfiler.collectGarbage');
    const { result } = await call(ws, 2, 'Runtime.getHeapUsage');
    return (result as { usedSize: number }).usedSize;
  } finally {
    ws.close();
  }
}

async function call(ws: WebSocketClient, id: number, method: string): Promise<{ result: unknown }> {
  ws.send(JSON.stringify({ id, method }));
  for (let m = await ws.next(); m !== undefined; m = await ws.next()) {
    const reply = JSON.parse(m.data.toString()) as { id?: number; result: unknown; error?: { message: string } };
    if (reply.id !== id) continue;
    if (reply.error !== undefined) throw new Error(`inspector ${method}: ${reply.error.message}`);
    return reply;
  }
  throw new Error(`inspector ${method}: the connection closed`);
}

/** Activates the inspector of `pid` (once) and finds the loopback port it listens on. */
async function inspectorPort(pid: number): Promise<number> {
  const found = listeningPort(pid);
  if (found !== undefined) return found;
  process.kill(pid, 'SIGUSR1');
  return waitFor(`process ${pid} to open an inspector port after SIGUSR1`, () => listeningPort(pid), 5_000);
}

/** A TCP port on 127.0.0.1 that `pid` listens on (/proc/net/tcp state 0A), if any. */
function listeningPort(pid: number): number | undefined {
  const inodes = procfs.socketInodes(pid);
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] === '0A' && fields[1]?.startsWith('0100007F:') && inodes.has(fields[9]))
      return parseInt(fields[1].split(':')[1], 16);
  }
  return undefined;
}

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
    }).on('error', reject);
  });
}
