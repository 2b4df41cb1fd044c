// Loaded with NODE_OPTIONS by node24.test.ts: tells on stderr which Node the pitch tool ran on.
if (process.argv[1] && process.argv[1].endsWith('pitch.mjs') && Number(process.versions.node.split('.')[0]) >= 24) {
  process.stderr.write(`pitch-ran-on ${process.version}\n`);
}
