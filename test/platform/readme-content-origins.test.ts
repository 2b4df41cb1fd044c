import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { DATAPLANE_DEFAULT_PORT } from '../../infra/local/dataplane.mjs';

// `npm start` serves content origins through the copies' data plane (infra/local/start.mjs sets
// CONTENT_ORIGIN to its port), not the platform's 8080: the README named 8080 (issue 47), and a
// newcomer who typed that address got the platform's own pages.

it("names the data plane's port for every content origin in the README", () => {
  const readme = readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
  const ports = [...readme.matchAll(/rooms\.localhost:(\d+)/g)].map((m) => Number(m[1]));
  expect(ports.length).toBeGreaterThan(0);
  expect(ports.filter((port) => port !== DATAPLANE_DEFAULT_PORT)).toEqual([]);
});
