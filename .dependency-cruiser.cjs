/**
 * The server's layers: api → domain → storage, with policy, presenters and errors beside them and
 * no cycles. `pnpm lint` runs this over server/src (tests excluded).
 */
const layer = (name) => `^server/src/${name}/`;
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'domain-below-routes',
      comment: 'Domain functions return rows; routes and presenters call them, never the other way.',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: [layer('api'), layer('http'), layer('presenters')] },
    },
    {
      name: 'domain-reaches-no-delivery',
      comment:
        'Domain functions take DomainServices and record events; delivery (realtime, live documents), HTTP (rate limits) and the process wiring (services.ts) subscribe or call in from above.',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: ['^server/src/services\\.ts$', layer('realtime'), layer('collab')] },
    },
    {
      name: 'domain-below-sessions',
      comment: 'Sessions and the gate are the entry points’ (types aside); the one exception, ending sessions, waits for its event subscriber.',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: layer('auth'), pathNot: '^server/src/auth/sessions\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'access-decided-at-entry',
      comment:
        'Only entry points authorize (policy/authorize.ts); a domain function names the Authorized context or Checks it needs (types only) and is handed them.',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: '^server/src/policy/authorize\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'routes-through-domain',
      comment: 'Routes parse, authorize, call a domain function and present; the database is the domain’s.',
      severity: 'error',
      from: { path: layer('api') },
      to: { path: layer('storage'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'storage-at-the-bottom',
      severity: 'error',
      from: { path: layer('storage') },
      to: { path: [layer('api'), layer('http'), layer('domain'), layer('policy'), layer('presenters'), layer('auth'), layer('realtime'), layer('collab')] },
    },
    {
      name: 'policy-is-pure',
      comment: 'Access rules read what they are given; they do no I/O and know no layer above storage rows.',
      severity: 'error',
      from: { path: layer('policy') },
      to: { path: [layer('api'), layer('http'), layer('domain'), layer('presenters'), layer('auth'), layer('realtime'), layer('collab'), layer('kv')] },
    },
    {
      name: 'presenters-only-shape',
      severity: 'error',
      comment: 'A presenter may name the domain result it shapes (a type), never call the domain.',
      from: { path: layer('presenters') },
      to: { path: [layer('api'), layer('http'), layer('domain'), layer('realtime'), layer('collab')], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'neutral-errors',
      comment: 'Only the HTTP layer maps error kinds to statuses.',
      severity: 'error',
      from: { path: '^server/src/', pathNot: [layer('http'), '^server/src/server\\.ts$'] },
      to: { path: layer('http') + 'errors\\.ts$' },
    },
    {
      name: 'no-test-support-in-production',
      severity: 'error',
      from: { path: '^server/src/', pathNot: ['\\.test\\.ts$', layer('testing')] },
      to: { path: [layer('testing')] },
    },
  ],
  options: {
    exclude: { path: ['\\.test\\.ts$', 'node_modules'] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'server/tsconfig.json' },
    combinedDependencies: false,
  },
};
