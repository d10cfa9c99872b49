/**
 * Layer rules of the hexagon (DESIGN.md): the domain is pure, the application sees
 * only the domain, adapters never reach into each other's rooms or the composition
 * root. `npm test` fails when one of these is broken.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports only src/domain: no node:, no packages, no I/O.',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { pathNot: '^src/domain' },
    },
    {
      name: 'application-sees-only-domain',
      comment: 'Use cases speak ports; adapters, infrastructure and node: stay outside.',
      severity: 'error',
      from: { path: '^src/application' },
      to: {
        pathNot: ['^src/application', '^src/domain', 'node_modules/inversify', 'node_modules/@inversifyjs'],
      },
    },
    {
      name: 'adapters-not-composition-root',
      comment: 'Only the base command and serve entry may build the container.',
      severity: 'error',
      from: { path: '^src/adapters', pathNot: '^src/adapters/inbound/cli/base-command\\.ts$' },
      to: { path: '^src/infrastructure/di' },
    },
    {
      name: 'inbound-not-outbound',
      comment: 'Inbound adapters reach outbound ones only through ports.',
      severity: 'error',
      from: { path: '^src/adapters/inbound' },
      to: { path: '^src/adapters/outbound' },
    },
    {
      name: 'outbound-not-inbound',
      severity: 'error',
      from: { path: '^src/adapters/outbound' },
      to: { path: '^src/adapters/inbound' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src', pathNot: '^src/infrastructure/proto/generated' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/infrastructure/proto/generated' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
