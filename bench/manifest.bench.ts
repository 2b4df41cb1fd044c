// How fast the platform checks manifests: validated manifests per second (JSON.parse then
// checkManifest) against JSON.parse alone on the same documents in the same run.
// Run: npx tsx bench/manifest.bench.ts

import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { checkManifest } from '@demo-rooms/contract/manifest';
import { arbManifest } from '../test/fixtures/manifest/manifest.arbitrary.js';
import { figure } from './report.js';

const DOCUMENTS = 2_000;
const ROUNDS = 5;
/** Each measurement repeats the whole set until at least this long, in milliseconds. */
const MIN_MEASURE_MS = 400;

// Fixed seed: the same varied documents (both kinds, 1-12 apps, stories, controls) every run.
const documents = fc.sample(arbManifest, { numRuns: DOCUMENTS, seed: 20261121 }).map((m) => JSON.stringify(m));
const totalKb = documents.reduce((sum, doc) => sum + doc.length, 0) / 1024;

let sink = 0;

function parseOnly(): void {
  for (const doc of documents) sink += (JSON.parse(doc) as { name: string }).name.length;
}

function parseAndCheck(): void {
  for (const doc of documents) {
    const result = checkManifest(JSON.parse(doc));
    if (!result.ok) throw new Error(`a generated manifest failed: ${JSON.stringify(result.problems)}`);
    sink += result.manifest.apps.length;
  }
}

/** Documents per second over repeated passes of the whole set. */
function measure(pass: () => void): number {
  let passes = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    pass();
    passes += 1;
    elapsed = performance.now() - start;
  } while (elapsed < MIN_MEASURE_MS);
  return (passes * DOCUMENTS) / (elapsed / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const format = (perSecond: number) => Math.round(perSecond).toLocaleString('en').padStart(12);

// Warm both paths so the JIT has compiled them before anything is measured.
parseOnly();
parseAndCheck();

console.log(`manifest check: ${DOCUMENTS} documents, ${totalKb.toFixed(0)} KiB of JSON, ${ROUNDS} rounds`);
console.log('round   JSON.parse/s   parse+check/s   ratio');
const baseline: number[] = [];
const checked: number[] = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  // Alternate which goes first so drift in the machine does not favour one side.
  let base: number;
  let check: number;
  if (round % 2 === 1) {
    base = measure(parseOnly);
    check = measure(parseAndCheck);
  } else {
    check = measure(parseAndCheck);
    base = measure(parseOnly);
  }
  baseline.push(base);
  checked.push(check);
  console.log(`${String(round).padStart(5)} ${format(base)} ${format(check)}   ${(check / base).toFixed(3)}`);
}
const base = median(baseline);
const check = median(checked);
console.log(`median ${format(base)} ${format(check)}   ${(check / base).toFixed(3)}`);
console.log(`checking costs ${(base / check).toFixed(1)}x JSON.parse alone; ${(1e6 / check).toFixed(1)} µs a manifest`);
figure({ name: 'manifest parse+check', value: check, unit: 'docs/s', baseline: base });
if (sink === 0) console.log('');
