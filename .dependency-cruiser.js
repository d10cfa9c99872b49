/**
 * Layer and product rules of the hexagon (docs/architecture.md): the domain is pure,
 * the application sees only the domain, adapters never reach into each other's rooms
 * or the composition root, and the two products (the shim, the login flow) never
 * import each other: what both need lives in a layer's `shared/`. `npm test` fails
 * when one of these is broken.
 */
const PRODUCTS = ['shim', 'login'];

const productRules = PRODUCTS.flatMap((from) =>
  PRODUCTS.filter((to) => to !== from).map((to) => ({
    name: `${from}-not-${to}`,
    comment: `The ${from} product never imports the ${to} product (put what both need in shared/).`,
    severity: 'error',
    from: { path: `^src/(domain|application|adapters|adapters/fakes)/${from}/` },
    to: { path: `^src/(domain|application|adapters|adapters/fakes|infrastructure)/${to}/` },
  })),
);

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
      name: 'shared-is-shared',
      comment: 'shared/ rooms serve both products, so they import neither.',
      severity: 'error',
      from: { path: '^src/(domain|application|adapters|adapters/fakes)/shared/' },
      to: { path: '^src/(domain|application|adapters|adapters/fakes)/(shim|login)/' },
    },
    ...productRules,
    {
      name: 'adapters-not-composition-root',
      comment: 'Only the base command may build the container.',
      severity: 'error',
      from: { path: '^src/adapters', pathNot: '^src/adapters/shared/inbound/cli/base-command\\.ts$' },
      to: { path: '^src/infrastructure/shared/container' },
    },
    {
      name: 'inbound-not-outbound',
      comment: 'Inbound adapters reach outbound ones only through ports.',
      severity: 'error',
      from: { path: '^src/adapters/(commands|[a-z]+/inbound)/' },
      to: { path: '^src/adapters/[a-z]+/outbound/' },
    },
    {
      name: 'outbound-not-inbound',
      severity: 'error',
      from: { path: '^src/adapters/[a-z]+/outbound/' },
      to: { path: '^src/adapters/(commands|[a-z]+/inbound)/' },
    },
    {
      name: 'wire-and-os-serve-both-sides',
      comment:
        "A product's wire/ (messages, framing, status codes) and os/ (addon, processes, sockets) serve its inbound and outbound adapters alike, so they import neither.",
      severity: 'error',
      from: { path: '^src/adapters/[a-z]+/(wire|os)/' },
      to: { path: '^src/adapters/(commands|[a-z]+/(inbound|outbound))/' },
    },
    {
      name: 'os-not-wire',
      comment: 'os/ knows processes and sockets, not what travels on them.',
      severity: 'error',
      from: { path: '^src/adapters/[a-z]+/os/' },
      to: { path: '^src/adapters/[a-z]+/wire/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src', pathNot: '^src/adapters/shim/wire/proto/generated' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/adapters/shim/wire/proto/generated' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
