/** @type {import('jest').Config} */
// For working on the plugin on its own, with skiff installed beside it as a dev
// dependency. In skiff's repository, skiff's own jest configuration runs this test.
module.exports = {
  testEnvironment: 'node',
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
