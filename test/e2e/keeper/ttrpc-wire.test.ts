import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { google } from '../../../src/adapters/shim/helpers/proto/generated/google/rpc/status';
import { ttrpc } from '../../../src/adapters/shim/helpers/proto/generated/ttrpc/request';
import { decodeResponse, requestMessage } from '../support/ttrpc-wire';

/**
 * native/keeper/ttrpc-wire.c on its own: the method name of a Request, whether a Response
 * succeeded, the Response the keeper writes in the serving process's place; built with the
 * sanitizers, against the project's protobuf codec and test/e2e/support/ttrpc-wire.ts.
 */
const ROOT = resolve(__dirname, '../../..');
const LINUX = process.platform === 'linux';

if (LINUX)
  describe("the keeper's ttrpc wire functions", () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-ttrpc-wire-'));
    const driver = join(dir, 'driver');
    beforeAll(() => {
      const cc = spawnSync(
        process.env.CC ?? 'gcc',
        [
          '-fsanitize=address,undefined',
          '-fno-sanitize-recover=all',
          '-g',
          '-Wall',
          '-Wextra',
          '-Werror',
          `-I${join(ROOT, 'native/keeper')}`,
          join(ROOT, 'native/keeper/ttrpc-wire.c'),
          join(__dirname, 'ttrpc-wire-driver.c'),
          '-o',
          driver,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      if (cc.status !== 0) throw new Error(`the driver did not build: ${cc.stderr}`);
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const run = (...args: string[]) => {
      const result = spawnSync(driver, args, { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      return result.stdout.replace(/\n$/, '');
    };
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

    it('reads the method of a Request, wherever its fields are, and of nothing else', () => {
      expect(run('method', hex(requestMessage('containerd.task.v2.Task', 'Wait', Buffer.from('payload'))))).toBe(
        'Wait',
      );
      const metadataFirst = new ttrpc.Request({
        metadata: [new ttrpc.KeyValue({ key: 'k', value: 'v' })],
        timeout_nano: 5_000_000_000,
        payload: Buffer.from([0x12, 0x03, 0x41, 0x42, 0x43]), // a field 2 inside the payload is not the method
        service: 'containerd.task.v2.Task',
        method: 'Create',
      }).serialize();
      expect(run('method', hex(metadataFirst))).toBe('Create');
      expect(run('method', '')).toBe('');
      expect(run('method', hex(requestMessage('s', 'M'.repeat(48))))).toBe(''); // longer than any Task method
    });

    it.each([
      ['a length past the end', '12ffffffff0f'],
      ['a method cut short', '120541'],
      ['a varint of 11 bytes', '80'.repeat(11)],
      ['a fixed64 cut short', '0901020304'],
      ['a group (wire type 3)', '1b'],
      ['a key cut short', '82'],
    ])('reads no method from bytes that are not a Request: %s', (_, bytes) => {
      expect(run('method', bytes)).toBe('');
    });

    it('tells a successful Response (no status, or code 0) from a failed one', () => {
      const ok = (status?: google.rpc.Status) =>
        run('ok', hex(new ttrpc.Response({ status, payload: Buffer.from('x') }).serialize()));
      expect(ok()).toBe('1');
      expect(ok(new google.rpc.Status({ code: 0 }))).toBe('1');
      expect(ok(new google.rpc.Status({ code: 5, message: 'not found' }))).toBe('0');
      expect(run('ok', '0aff')).toBe('0'); // a status cut short
    });

    it('writes an UNAVAILABLE Response that ttrpc reads back', () => {
      const message = "skiff's serving process restarted while Create was in flight";
      const frame = Buffer.from(run('status', '4294967295', '14', message), 'hex');
      expect([frame.readUInt32BE(0), frame.readUInt32BE(4), frame[8], frame[9]]).toEqual([
        frame.length - 10,
        4294967295,
        2,
        0,
      ]);
      expect(decodeResponse(4294967295, 2, frame.subarray(10))).toMatchObject({ hasStatus: true, code: 14, message });
      const decoded = ttrpc.Response.deserialize(frame.subarray(10));
      expect([decoded.status.code, decoded.status.message]).toEqual([14, message]);
    });
  });
