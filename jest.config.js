const { containerdSuitesLeftOut } = require('./scripts/missing-tools');

/**
 * The files that hold nothing but containerd suites. Where those suites are left out
 * (test/support/suite-gate.ts), jest would fail each such file as holding no test, so
 * they are not collected then; the other gated files still print why.
 */
const CONTAINERD_ONLY = [
  '<rootDir>/test/e2e/cri/',
  '<rootDir>/test/e2e/containerd/skiff-shim.test.ts',
  '<rootDir>/test/e2e/containerd/skiff-crash.test.ts',
  '<rootDir>/test/e2e/containerd/skiff-crash-inflight.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The example plugin's own test runs here too, against this checkout's skiff.
  roots: ['<rootDir>/test', '<rootDir>/examples/plugin-hello/test'],
  moduleNameMapper: {
    '^skiff-cli/plugin$': '<rootDir>/src/adapters/plugin-api/index.ts',
    '^skiff-cli/testing$': '<rootDir>/src/infrastructure/login/testing/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(containerdSuitesLeftOut() ? CONTAINERD_ONLY : [])],
  setupFiles: ['reflect-metadata'],
  transform: {
    // Type checking is done once by `npm run check` (tsc --noEmit); ts-jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // Two cores on the CI machines: keep the suites from starving each other's subprocesses.
  maxWorkers: 2,
  testTimeout: 30000,
};
