import { KeptLauncher } from '../../../../../src/adapters/shim/outbound/keeper/kept-launcher';
import { PodKeepers } from '../../../../../src/adapters/shim/outbound/keeper/pod-keepers';

/** What a KeptLauncher asks of its pod's keeper for each verb (docs/keeper-protocol.md): one pod, the process's keys. */
describe('KeptLauncher', () => {
  const POD = '/run/pod.sock';
  function launcher() {
    const asked: string[] = [];
    const keepers = {
      release: async (pod: string, key: string) => void asked.push(`release ${pod} ${key}`),
      drop: (pod: string, key: string) => void asked.push(`drop ${pod} ${key}`),
      releaseOnConnect: (pod: string, key: string) => void asked.push(`releaseOnConnect ${pod} ${key}`),
      closeStdin: async (pod: string, key: string) => void asked.push(`closeStdin ${pod} ${key}`),
      resize: async (pod: string, key: string, w: number, h: number) =>
        void asked.push(`resize ${pod} ${key} ${w}x${h}`),
    } as unknown as PodKeepers;
    return { kept: new KeptLauncher(keepers, POD), asked };
  }

  it('lets a key go at Delete, its logger after it when it has one', async () => {
    const { kept, asked } = launcher();
    await kept.release('t', false);
    await kept.release('t/e1', true);
    expect(asked).toEqual([`release ${POD} t`, `release ${POD} t/e1`, `release ${POD} t/e1@log`]);
  });

  it('drops a forgotten key and its logger without waiting', () => {
    const { kept, asked } = launcher();
    kept.drop('t', true);
    expect(asked).toEqual([`drop ${POD} t`, `drop ${POD} t@log`]);
  });

  it('cancels a Start in flight at a crash on the next connection: the key and its logger', () => {
    const { kept, asked } = launcher();
    kept.cancelStart('t/e1');
    expect(asked).toEqual([`releaseOnConnect ${POD} t/e1`, `releaseOnConnect ${POD} t/e1@log`]);
  });

  it('sends CloseIO and a resize to the keeper, and is the keeper of its terminals', async () => {
    const { kept, asked } = launcher();
    await kept.closeStdin('t');
    await kept.keeper.resize('t', 80, 24, 'task "t"');
    expect(asked).toEqual([`closeStdin ${POD} t`, `resize ${POD} t 80x24`]);
  });
});
