import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueNames } from '../../services/core/infra/queues.js';

// Each folder under workers/ is one queue of the job catalog (services/core/infra/queues.ts), named
// as the queue with its dot as a dash (`archive.unpack` → workers/archive-unpack/), and each queue
// has its folder: a reader going from a queue to its code, or back, finds it by the name. What the
// queues share (app.ts, processors.ts, worker-deps.ts) sits at the root, in files, not folders.

const workers = path.resolve(import.meta.dirname, '../../workers');

describe('worker folders', () => {
  it('are the queues of the job catalog, one each, named as the queue', () => {
    const folders = readdirSync(workers, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual(queueNames.map((q) => q.replace('.', '-')).sort());
  });
});
