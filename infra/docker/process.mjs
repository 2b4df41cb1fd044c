// The image's entry point: `process.mjs <kind>` runs that process kind's compiled main in this
// same Node process (imported, not spawned), so SIGTERM reaches it directly.
const mains = {
  api: './dist/services/api/main.js',
  // api and room in one process, for a single host
  platform: './dist/services/platform/main.js',
  room: './dist/services/room/main.js',
  workers: './dist/workers/main.js',
  runner: './dist/runner/main.js',
  migrate: './dist/services/core/infra/migrate.main.js',
  // Writes this host's data plane config (HAProxy) from the environment: infra/local/dataplane.mjs.
  'dataplane-config': './infra/local/dataplane.mjs',
};

const kind = process.argv[2] ?? 'api';
if (!(kind in mains)) {
  console.error(`unknown process kind ${JSON.stringify(kind)}; one of: ${Object.keys(mains).join(', ')}`);
  process.exit(2);
}
await import(mains[kind]);
