/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The example plugin's own test runs here too, against this checkout's skiff.
  roots: ['<rootDir>/test', '<rootDir>/examples/plugin-hello/test'],
  moduleNameMapper: {
    '^skiff/plugin$': '<rootDir>/src/adapters/login/inbound/plugin/index.ts',
    '^skiff/testing$': '<rootDir>/src/infrastructure/login/testing/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  transform: {
    // Type checking is done once by `npm run check` (tsc --noEmit); ts-jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // Two cores on the CI machines: keep the suites from starving each other's subprocesses.
  maxWorkers: 2,
  testTimeout: 30000,
};
