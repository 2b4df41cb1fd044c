// Engine calls made by a process of their own, after `pitch deploy` has ended (after-exit.ts):
// the rehearsal copy's removal, which took the last 0.06-0.15 s of every container deploy while
// the person waited for the prompt. Started detached with its standard streams closed; it makes
// each call in order over the engine's unix socket, whatever the one before answered, and ends.
// A call that fails leaves the copy to the next rehearsal's sweep (left-rehearsals.ts).
// Plain JavaScript with Node's own modules: it starts in a few hundredths of a second, without
// the tool's TypeScript loader.
// Usage: node engine-requests.mjs '{"socketPath": "...", "requests": [{"method": "DELETE", "path": "/..."}]}'
import { request } from 'node:http';

/** A call's bound: a removal waits out a stopping copy, never an engine that does not answer. */
const CALL_TIMEOUT_MS = 60_000;

function call(socketPath, { method, path }) {
  return new Promise((resolve) => {
    const req = request({ socketPath, method, path, timeout: CALL_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', resolve);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', resolve);
    req.end();
  });
}

const jobs = JSON.parse(process.argv[2] ?? '[]');
await Promise.all(
  jobs.map(async ({ socketPath, requests }) => {
    for (const each of requests) await call(socketPath, each);
  }),
);
