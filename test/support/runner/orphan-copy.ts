import { randomUUID } from 'node:crypto';
import type { CopySpec } from '@demo-rooms/contract/runner';
import { insertCopy, type CopyRow } from '../../../services/data/copies.sql.js';
import type { Seeded } from './seed.js';
import type { TestRunner } from './test-runner.js';

/**
 * Starts a copy straight in the runner's engine, labelled as the runner labels its own, with no
 * record behind it: what a crash between the engine's start and the record leaves, for the
 * reconcile and the usage reconciliation to find.
 */
export async function startOrphanInEngine(runner: TestRunner, build: Seeded, image: string, copyId: string): Promise<void> {
  const spec: CopySpec = {
    copyId,
    buildId: build.buildId,
    projectId: build.projectId,
    workspaceId: build.workspaceId,
    runnerId: runner.runnerId,
    image,
    start: ['node', 'server.js'],
    env: {},
    ...runner.settings.copy,
  };
  await runner.engine.start(spec, { signal: new AbortController().signal, made: async () => {}, running: async () => {}, phase: () => {} });
}

/** A warm copy's record of the build on the runner, just admitted (creating), with no container behind it yet. */
export function warmRecord(runner: TestRunner, build: Seeded): Promise<CopyRow> {
  return insertCopy(runner.sql, {
    ...build,
    id: randomUUID(),
    runnerId: runner.runnerId,
    sessionId: null,
    origin: 'warm',
    state: 'creating',
  });
}
