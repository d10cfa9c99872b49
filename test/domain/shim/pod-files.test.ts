import { podFilesOf, resolvConfText } from '../../../src/domain/shim/pod-files';
import { NO_POD_FIELDS } from '../../../src/domain/shim/sandbox';

describe("a pod's files in the sandbox mode", () => {
  it("writes resolv.conf as containerd's parseDNSOptions does: search, each nameserver, options", () => {
    expect(
      resolvConfText({
        servers: ['10.96.0.10', '10.96.0.11'],
        searches: ['a.svc', 'svc'],
        options: ['ndots:5', 'edns0'],
      }),
    ).toBe('search a.svc svc\nnameserver 10.96.0.10\nnameserver 10.96.0.11\noptions ndots:5 edns0\n');
    expect(resolvConfText({ servers: [], searches: [], options: [] })).toBe('');
  });

  it("takes the node's hostname and resolv.conf where the pod names none, and a /dev/shm of its own unless its IPC is the node's", () => {
    expect(podFilesOf('p', NO_POD_FIELDS)).toEqual({ ownShm: true });
    expect(podFilesOf('p', { ...NO_POD_FIELDS, hostname: 'web-0', ipc: 'node' })).toEqual({
      hostname: 'web-0',
      ownShm: false,
    });
  });

  it.each([
    ['hostname', { hostname: 'a\nb' }],
    ['DNS server', { dns: { servers: ['1.1.1.1\nnameserver 6.6.6.6'], searches: [], options: [] } }],
    ['DNS search domain', { dns: { servers: [], searches: [''], options: [] } }],
    ['DNS option', { dns: { servers: [], searches: [], options: ['ndots:5\r'] } }],
  ])('refuses a %s that would break its file, naming it', (what, fields) => {
    expect(() => podFilesOf('p', { ...NO_POD_FIELDS, ...fields })).toThrow(
      expect.objectContaining({ kind: 'InvalidArgument', message: expect.stringContaining(`sandbox p: the ${what} `) }),
    );
  });
});
