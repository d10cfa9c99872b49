import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { containerdTestsEnabled } from '../../support/containerd';
import { containerConfig, StartedPod } from '../../support/cri';
import { WebSocketClient } from '../../support/websocket';
import { waitFor } from '../../support/wait-for';
import { CRI_HANDLERS, CriEnv, readCriLog, sleep, startCriEnv, waitForState } from './support';

/** kubectl's streaming subprotocol: one byte of channel (0 stdin, 1 stdout, 2 stderr, 3 status, 4 resize) per message. */
const STREAM_PROTOCOL = 'v4.channel.k8s.io';

/**
 * kubectl attach and kubelet's log rotation (docs/cri.md), through each handler: CRI `Attach`
 * to a container with and without a terminal (its stdin, its output, a resize), and
 * `ReopenContainerLog` after the log file was renamed, as kubelet rotates it. Both are the CRI
 * plugin's work on the container's FIFOs (its attach streams, its log writer) and on the shim's
 * stdin FIFO and ResizePty: the shim must keep the FIFOs as containerd's runc shim does.
 */
if (containerdTestsEnabled())
  describe.each(CRI_HANDLERS)('CRI Attach and ReopenContainerLog through the %s runtime handler', (handler) => {
    let ctx: CriEnv;
    let pod: StartedPod;
    let n = 0;

    async function container(command: string[], options: { tty?: boolean; stdin?: boolean } = {}) {
      const name = `a${n++}`;
      const config = containerConfig({ name, command, logPath: `${name}.log`, ...options });
      const { containerId } = await ctx.cri.runtime<{ containerId: string }>('CreateContainer', {
        podSandboxId: pod.podSandboxId,
        config,
        sandboxConfig: pod.sandboxConfig,
      });
      await ctx.cri.runtime('StartContainer', { containerId });
      return { containerId, log: join(ctx.logDir, 'attach', `${name}.log`) };
    }

    /** Attach through the CRI streaming server: the stream, once open. */
    async function attach(request: Record<string, unknown>): Promise<WebSocketClient> {
      const { url } = await ctx.cri.runtime<{ url: string }>('Attach', request);
      const ws = await WebSocketClient.connect(url, [STREAM_PROTOCOL]);
      expect(ws.protocol).toBe(STREAM_PROTOCOL);
      return ws;
    }

    const channel = (id: number, data: string) => Buffer.concat([Buffer.from([id]), Buffer.from(data)]);

    /** What each channel carried until the stream closed. */
    async function channelsOf(ws: WebSocketClient): Promise<Map<number, string>> {
      const channels = new Map<number, string>();
      for (const { data } of await ws.all())
        if (data.length > 1) channels.set(data[0], (channels.get(data[0]) ?? '') + data.subarray(1).toString());
      return channels;
    }

    beforeAll(async () => {
      ctx = await startCriEnv();
      pod = await ctx.startPod(handler, { name: 'attach' }, []);
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it('Attach to a container without a terminal: what the client sends is its stdin, its stdout and stderr come back apart and reach the log', async () => {
      const { containerId, log } = await container(
        ['sh', '-c', 'read line; echo "got $line"; echo "err $line" >&2; read rest; echo "end ${rest:-eof}"'],
        { stdin: true },
      );
      await waitForState(ctx.cri, containerId, 'CONTAINER_RUNNING');
      const ws = await attach({ containerId, stdin: true, stdout: true, stderr: true });
      ws.send(channel(0, 'hello\n'));
      const channels = new Map<number, string>();
      await waitFor('both answers on the stream', async () => {
        const message = await ws.next();
        if (message === undefined) return true;
        // The streaming server opens each channel with an empty message.
        if (message.data.length <= 1) return false;
        const id = message.data[0];
        channels.set(id, (channels.get(id) ?? '') + message.data.subarray(1).toString());
        return channels.has(1) && channels.has(2);
      });
      expect([channels.get(1), channels.get(2)]).toEqual(['got hello\n', 'err hello\n']);
      // The client leaves: with stdinOnce the CRI plugin closes the container's stdin (CloseIO),
      // so its second read meets end-of-file.
      ws.close();
      const { status } = await waitForState(ctx.cri, containerId, 'CONTAINER_EXITED');
      expect(status.exitCode).toBe(0);
      const lines = await waitFor('three log lines', () => {
        const read = readCriLog(log);
        return read.length >= 3 ? read : undefined;
      });
      // Two FIFOs: each stream's order is kept, not the order between them.
      const of = (stream: string) => lines.filter((line) => line.stream === stream).map(({ text }) => text);
      expect([of('stdout'), of('stderr')]).toEqual([['got hello', 'end eof'], ['err hello']]);
    });

    it('Attach to a container on a terminal: its input is echoed, a resize reaches its terminal, and its output comes as stdout', async () => {
      const { containerId, log } = await container(['sh', '-c', 'read line; echo "got $line"; stty size'], {
        tty: true,
        stdin: true,
      });
      await waitForState(ctx.cri, containerId, 'CONTAINER_RUNNING');
      const ws = await attach({ containerId, stdin: true, stdout: true, tty: true });
      ws.send(channel(4, JSON.stringify({ Width: 100, Height: 30 })));
      // The resize is the CRI plugin's ResizePty to the shim, asynchronous to the stream.
      await sleep(500);
      ws.send(channel(0, 'hello\n'));
      const output = (await channelsOf(ws)).get(1)?.replace(/\r/g, '') ?? '';
      expect(output).toContain('hello\ngot hello\n30 100\n');
      const { status } = await waitForState(ctx.cri, containerId, 'CONTAINER_EXITED');
      expect(status.exitCode).toBe(0);
      const logged = await waitFor('the size in the log', () => {
        const read = readCriLog(log).map(({ stream, text }) => [stream, text.replace(/\r$/, '')]);
        return read.some(([, text]) => text === '30 100') ? read : undefined;
      });
      expect(logged).toContainEqual(['stdout', 'got hello']);
    });

    it('ReopenContainerLog after the log was renamed: the old file ends where the new one begins, no line lost or doubled', async () => {
      const { containerId, log } = await container([
        'sh',
        '-c',
        'i=0; while true; do echo "line $i"; i=$((i+1)); usleep 20000; done',
      ]);
      const numbers = (file: string) => readCriLog(file).map(({ text }) => Number(text.replace('line ', '')));
      await waitFor('ten lines', () => numbers(log).length >= 10);
      renameSync(log, `${log}.1`);
      await sleep(100);
      await ctx.cri.runtime('ReopenContainerLog', { containerId });
      await waitFor('ten lines in the new file', () => numbers(log).length >= 10);
      const rotated = numbers(`${log}.1`);
      const reopened = numbers(log);
      expect(rotated).toEqual(rotated.map((_, i) => i));
      expect(reopened[0]).toBe(rotated.length);
      expect(reopened).toEqual(reopened.map((_, i) => rotated.length + i));
      await ctx.cri.runtime('StopContainer', { containerId, timeout: 0 });
      await waitForState(ctx.cri, containerId, 'CONTAINER_EXITED');
      // A container that does not run has no log to reopen: the CRI plugin's answer, for both handlers.
      await expect(ctx.cri.runtime('ReopenContainerLog', { containerId })).rejects.toThrow(/not running/);
    });
  });
