import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_CASES } from '../../../test/fixtures/manifest/manifest.cases.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

// Every rule and limit of the manifest, through createBuild: a failing case answers 400 invalid
// with an issue at `manifest.<path>` for each problem; a passing case gets past validation
// (here to 404, since the upload id names nothing).
let platform: Platform;
let token: string;
let projectId: string;
beforeAll(async () => {
  platform = await startPlatform();
  const person = await platform.person({ plan: 'solo' });
  token = person.token;
  projectId = (await person.client.call('createProject', { body: { slug: `m-${crypto.randomUUID().slice(0, 12)}`, name: 'M' } })).id;
});
afterAll(async () => {
  await platform.close();
});

const prefixed = (path: string) => (path ? `manifest.${path}` : 'manifest');

describe('createBuild checks the manifest', () => {
  it.each(RULE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await platform.fetch(`/api/projects/${projectId}/builds`, {
      method: 'POST',
      token,
      json: { uploadId: '00000000-0000-4000-8000-000000000000', manifest: c.manifest },
    });
    if (c.paths.length === 0) {
      expect(res.status).toBe(404);
      return;
    }
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid');
    const paths = res.body.issues.map((i: { path: string }) => i.path);
    for (const path of c.paths) expect(paths).toContain(prefixed(path));
  });
});
