// The layering rule of docs/architecture.md, checked on every `npm test` (and so in CI) by
// dependency-cruiser: `npm run layers`. Each area may import from the layers below it and never
// from a sibling's insides. Tests and benchmarks are not areas: they may reach across.
const AREAS = {
  contract: '^services/contract/',
  core: '^services/core/',
  data: '^services/data/',
  api: '^services/api/',
  room: '^services/room/',
  ops: '^services/ops/',
  cli: '^services/cli/',
  platform: '^services/platform/',
  workers: '^workers/',
  runner: '^runner/',
  web: '^services/web/',
};

// Who may import whom (besides itself and npm packages).
const ALLOWED = {
  contract: [],
  core: ['contract'],
  data: ['contract', 'core'],
  api: ['contract', 'core', 'data'],
  room: ['contract', 'core', 'data'],
  workers: ['contract', 'core', 'data'],
  runner: ['contract', 'core', 'data'],
  ops: ['contract', 'core', 'data'],
  cli: ['contract'],
  // The builder's web app: a client of the contract, like the cli.
  web: ['contract'],
  // The one composition root that puts the api and the room in one process.
  platform: ['contract', 'core', 'data', 'api', 'room'],
};

const notTest = '\\.test\\.ts$';

// The contract's Node-only files (services/contract/package.json: `./runner`, `./node`). Every other
// contract file is browser-safe, as the web app bundles the package's `.` and `./manifest`: it
// imports no Node built-in and no Node-only file, so no browser-safe entry can reach one.
const CONTRACT_NODE_ONLY = [
  // The runner's wire schemas (runner-api.schema.ts, copy-labels.ts, runner-refusal.ts) are zod
  // only: the room shell's bodies reuse them. What reaches Node is listed by file.
  '^services/contract/runner/(runner-key|runner-client|fleet-client|docker-create-options|copy|runner)\\.ts$',
  '^services/contract/node\\.ts$',
  '^services/contract/static-digest\\.ts$',
  '^services/contract/manifest/manifest-folder\\.check\\.ts$',
  '^services/contract/manifest/static-paths\\.check\\.ts$',
];

const forbidden = Object.entries(ALLOWED).map(([area, allowed]) => ({
  name: `${area}-imports-only-below`,
  comment: `${area} may import ${allowed.length ? allowed.join(', ') : 'nothing of the platform'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: AREAS[area], pathNot: notTest },
  to: {
    path: '^(services|workers|runner|infra|test|bench)/',
    pathNot: [AREAS[area], ...allowed.map((a) => AREAS[a])],
  },
}));

forbidden.push(
  {
    name: 'sql-lives-in-data',
    comment: "a table's SQL belongs to services/data, one file per table family",
    severity: 'error',
    from: { path: '^(services|workers|runner)/', pathNot: notTest },
    to: { path: '\\.sql\\.ts$', pathNot: '^services/data/' },
  },
  {
    name: 'contract-browser-safe-imports-no-node',
    comment: 'a browser-safe contract file imports no Node built-in (list a Node-only file in CONTRACT_NODE_ONLY)',
    severity: 'error',
    from: { path: AREAS.contract, pathNot: [notTest, ...CONTRACT_NODE_ONLY] },
    to: { dependencyTypes: ['core'] },
  },
  {
    name: 'contract-browser-safe-imports-no-node-only-file',
    comment: 'a browser-safe contract file imports no Node-only one: the web app bundles it',
    severity: 'error',
    from: { path: AREAS.contract, pathNot: [notTest, ...CONTRACT_NODE_ONLY] },
    to: { path: CONTRACT_NODE_ONLY },
  },
  {
    name: 'cli-imports-no-runner-client',
    comment:
      "the pitch tool takes a copy's spec from `@demo-rooms/contract/copy`: the runner's barrel loads its HTTP client (undici), 0.15 s of every redeploy (issue 48)",
    severity: 'error',
    from: { path: AREAS.cli, pathNot: notTest },
    to: { path: '^services/contract/runner/(runner|runner-client|fleet-client)\\.ts$' },
  },
  {
    name: 'web-imports-no-node-only-contract',
    comment: 'the web app runs in a browser: it imports `@demo-rooms/contract` and `/manifest`, never `/runner`, `/copy` or `/node`',
    severity: 'error',
    from: { path: AREAS.web, pathNot: notTest },
    to: { path: CONTRACT_NODE_ONLY },
  },
  {
    // Tests too: `npm run layers` cruises test/, bench/ and infra/ as well, where only this rule and
    // no-circular apply.
    name: 'contract-imported-by-name',
    comment:
      'outside services/contract, the contract is `@demo-rooms/contract` and its exported subpaths, never a relative path into it (docs/decisions/contract-package.md)',
    severity: 'error',
    from: { pathNot: AREAS.contract },
    // By name it is `aliased` (tsconfig.json `paths`, or the workspace link); a relative path is not.
    to: { path: AREAS.contract, dependencyTypesNot: ['aliased'] },
  },
  {
    // services/core/README.md: rules/ is the one home for a rule two areas share, and stays pure so
    // any area (and any test) can use it without a connection; a rule that needs one is infra's, or
    // splits into a pure rule here and its plumbing there.
    name: 'core-rules-import-no-infra',
    comment: 'services/core/rules never imports services/core/infra (services/core/README.md)',
    severity: 'error',
    from: { path: '^services/core/rules/' },
    to: { path: '^services/core/infra/' },
  },
  {
    name: 'no-circular',
    comment: 'import cycles hide the layering',
    severity: 'error',
    from: { pathNot: notTest },
    to: { circular: true },
  },
  {
    // bulletproof-react's import zones: an area of the web app is one lazy chunk and one page;
    // what two areas share lives in src/ui or src/api, so an area can change or go on its own.
    name: 'web-areas-apart',
    comment: 'an area of the web app (services/web/src/areas/<a>) never imports another area',
    severity: 'error',
    from: { path: '^services/web/src/areas/([^/]+)/' },
    to: { path: '^services/web/src/areas/', pathNot: '^services/web/src/areas/$1/' },
  },
  {
    name: 'no-test-code-in-production',
    comment: 'production code never imports tests, fixtures or test support',
    severity: 'error',
    from: { path: '^(services|workers|runner)/', pathNot: notTest },
    to: { path: '(\\.test\\.ts$|^test/)' },
  },
);

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^node_modules|^dist|^\\.data|^services/web/dist|^test/fixtures/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
