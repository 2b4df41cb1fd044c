// The local object store: s3rver in its own process, so a slow upload never stalls the launcher.
// Usage: node infra/local/s3-server.mjs <directory> <port> <bucket>...
import S3rver from 's3rver';

const [directory, port, ...buckets] = process.argv.slice(2);
if (!directory || !port) {
  console.error('usage: s3-server.mjs <directory> <port> <bucket>...');
  process.exit(2);
}

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  directory,
  // s3rver logs every request through winston; the platform logs its own storage calls.
  silent: true,
  configureBuckets: buckets.map((name) => ({ name })),
});

const { port: bound } = await server.run();
console.log(`listening on http://127.0.0.1:${bound} (buckets: ${buckets.join(', ') || 'none'})`);

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close().finally(() => process.exit(0)));
}
