import { runcEnvironment } from '../../../../../../src/adapters/shim/outbound/process-runtime/runc/runc-cli';

/** runc's environment as containerd's runc shim gives it (runc-cli.ts, runcEnvironment). */
describe('runcEnvironment', () => {
  it("drops NOTIFY_SOCKET (go-runc's command()) and sets GOMAXPROCS=4 (the runc shim's own), keeping the rest", () => {
    const env = runcEnvironment({ PATH: '/usr/bin', NOTIFY_SOCKET: '/run/systemd/notify', GOMAXPROCS: '2', A: 'b=c' });
    expect(env.sort()).toEqual(['A=b=c', 'GOMAXPROCS=4', 'PATH=/usr/bin']);
  });
});
