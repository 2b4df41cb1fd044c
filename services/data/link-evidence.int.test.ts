import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { uniqueSlug } from '../../test/support/refusal.js';
import { recordEvidence, type Evidence } from './link-evidence.sql.js';

// The stage rules one by one (docs/decisions/pipeline-and-evidence.md): evidence only
// moves a link forward, and an answer is replaced only by another answer.

let platform: Platform;
let linkId: string;
beforeAll(async () => {
  platform = await startPlatform();
  const person = await platform.person({ plan: 'solo' });
  const project = await person.client.call('createProject', { body: { slug: uniqueSlug('ev'), name: 'Evidence' } });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  [{ id: linkId }] = await platform.deps.sql<{ id: string }[]>`
    insert into links (workspace_id, project_id, viewer_name, key_hash) values (${workspaceId}, ${project.id}, 'Ada', ${Buffer.from(uniqueSlug('k'))}) returning id`;
});
afterAll(async () => {
  await platform.close();
});

const rules: [string, Evidence, string][] = [
  ['sent', 'engaged', 'engaged'],
  ['opened', 'engaged', 'engaged'],
  ['engaged', 'engaged', 'engaged'],
  ['yes', 'engaged', 'yes'],
  ['later', 'engaged', 'later'],
  ['no', 'engaged', 'no'],
  ['sent', 'yes', 'yes'],
  ['opened', 'later', 'later'],
  ['engaged', 'no', 'no'],
  ['yes', 'later', 'later'],
  ['later', 'yes', 'yes'],
  ['no', 'yes', 'yes'],
];

describe('recordEvidence', () => {
  it.each(rules)('from %s, %s evidence gives %s', async (from, evidence, to) => {
    await platform.deps.sql`update links set stage = ${from} where id = ${linkId}`;
    await recordEvidence(platform.deps.sql, linkId, evidence);
    const [{ stage }] = await platform.deps.sql<{ stage: string }[]>`select stage from links where id = ${linkId}`;
    expect(stage).toBe(to);
  });

  it('moves nothing without a link (a preview or a public visit)', async () => {
    await expect(recordEvidence(platform.deps.sql, null, 'yes')).resolves.toBeUndefined();
  });
});
