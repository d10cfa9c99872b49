import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// Files holding nothing but containerd suites are not collected where those suites are left
// out: jest would fail each as holding no test, and `npm test` with it on a machine without
// containerd. Read in a Node process of its own, as jest reads its config, for each setting.
const CONFIG = join(__dirname, '../../jest.config.js');

function ignoredWith(flag: string): string[] {
  const script = `process.stdout.write(JSON.stringify(require(${JSON.stringify(CONFIG)}).testPathIgnorePatterns))`;
  const env = { ...process.env, SKIFF_CONTAINERD_TESTS: flag };
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env })) as string[];
}

describe('jest.config.js', () => {
  it('leaves the containerd-only files out with SKIFF_CONTAINERD_TESTS=0', () => {
    expect(ignoredWith('0')).toEqual(
      expect.arrayContaining(['<rootDir>/test/e2e/cri/', '<rootDir>/test/e2e/containerd/skiff-shim.test.ts']),
    );
  });

  it('collects them with SKIFF_CONTAINERD_TESTS=1, so a missing piece fails them as CI wants', () => {
    expect(ignoredWith('1')).toEqual(['/node_modules/']);
  });
});
