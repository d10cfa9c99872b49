/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
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
