import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsCommand } from '../../../test/support/ops-command.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { deployStaticRoom } from '../../../test/support/room.js';

// A new cover of a listed card (issue 28, M5) is held back until the operator approves it in
// `npm run ops -- review`: the public cover address keeps the one before. A draft's replaces at once.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const png = (width: number) =>
  sharp({ create: { width, height: 32, channels: 3, background: '#1c7ed6' } })
    .png()
    .toBuffer();
const ops = (...args: string[]) => opsCommand(platform, ...args);

/** A live static room with a saved card whose cover is 64 px wide, listed unless told. */
async function cardWithCover(list = true) {
  const owner = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, owner, {
    files: { 'index.html': '<title>A</title>', 'img/wide.png': await png(200) },
  });
  const params = { projectId: project.id };
  await owner.client.call('saveCard', { params, body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' } });
  const first = await putCover(owner.token, project.id, 64);
  if (list) expect((await owner.client.call('listProject', { params })).status).toBe('listed');
  return { owner, project, params, firstHash: first.cover.hash as string };
}

async function putCover(token: string, projectId: string, width: number) {
  const put = await platform.fetch(`/api/projects/${projectId}/card/cover`, { method: 'PUT', token, body: await png(width) });
  expect(put.status).toBe(200);
  return put.body;
}

/** The width of the cover anyone is shown at the public address, or its status when there is none. */
async function publicCoverWidth(slug: string) {
  const res = await fetch(`${platform.baseUrl}/api/community/projects/${slug}/cover`);
  if (res.status !== 200) return res.status;
  return (await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width;
}

const stored = async (projectId: string, hash: string) => Boolean(await platform.deps.storage.head(`covers/${projectId}/${hash}`));

/** The held cover's hash as the review list names it (covers/<project>/<hash>). */
async function heldHashInReview(projectId: string, slug: string) {
  const list = await ops('review');
  expect(list.code, list.stderr).toBe(0);
  const line = list.stdout.split('\n').find((l) => l.includes(`  ${slug}  `) && l.includes('covers/'));
  expect(line, list.stdout).toBeDefined();
  return line!.match(new RegExp(`covers/${projectId}/([0-9a-f]{64})`))![1];
}

describe('covers of listed cards', () => {
  it('holds a new cover of a listed card off the public address until the operator approves it', async () => {
    const { owner, project, params, firstHash } = await cardWithCover();
    expect(await publicCoverWidth(project.slug)).toBe(64);

    const card = await putCover(owner.token, project.id, 96);
    expect(card).toMatchObject({ status: 'listed', coverPending: true, cover: { hash: firstHash } });
    expect(await owner.client.call('getCard', { params })).toMatchObject({ coverPending: true, cover: { hash: firstHash } });
    expect(await publicCoverWidth(project.slug)).toBe(64);
    const mine = (await platform.fetch('/api/community/listings')).body.find((l: { slug: string }) => l.slug === project.slug);
    expect(mine.cover).toBe(true);

    const heldHash = await heldHashInReview(project.id, project.slug);
    const file = join(await mkdtemp(join(tmpdir(), 'held-cover-')), 'cover.png');
    const saved = await ops('review', 'cover', project.slug, file);
    expect(saved.code, saved.stderr).toBe(0);
    expect((await sharp(await readFile(file)).metadata()).width).toBe(96);

    const approved = await ops('review', 'approve-cover', project.slug);
    expect([approved.code, approved.stdout.trim()]).toEqual([0, `${project.slug}: cover approved`]);
    expect(await publicCoverWidth(project.slug)).toBe(96);
    expect(await owner.client.call('getCard', { params })).toMatchObject({
      status: 'listed',
      coverPending: false,
      cover: { hash: heldHash },
    });
    expect([await stored(project.id, firstHash), await stored(project.id, heldHash)]).toEqual([false, true]);
    const again = await ops('review', 'approve-cover', project.slug);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('no cover waiting')]);
  });

  it('holds a cover copied from the build too; a rejected one is deleted, the old one stays and the builder is told why', async () => {
    const { owner, project, params, firstHash } = await cardWithCover();
    const card = await owner.client.call('coverFromBuild', { params, body: { path: '/img/wide.png' } });
    expect(card).toMatchObject({ coverPending: true, cover: { hash: firstHash } });
    expect(await publicCoverWidth(project.slug)).toBe(64);
    const heldHash = await heldHashInReview(project.id, project.slug);
    expect(await stored(project.id, heldHash)).toBe(true);

    const rejected = await ops('review', 'reject-cover', project.slug, 'a', 'logo', 'that', 'is', 'not', 'yours');
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(await publicCoverWidth(project.slug)).toBe(64);
    expect(await owner.client.call('getCard', { params })).toMatchObject({
      status: 'listed',
      coverPending: false,
      cover: { hash: firstHash },
    });
    expect([await stored(project.id, firstHash), await stored(project.id, heldHash)]).toEqual([true, false]);
    const notices = await owner.client.call('listNotices');
    expect(notices[0]).toMatchObject({ kind: 'listing.blocked', body: expect.stringContaining('a logo that is not yours') });
    expect((await ops('review')).stdout).not.toContain(`covers/${project.id}/`);
  });

  it("replaces a draft card's cover at once, and removeCover takes the held one away too", async () => {
    const { owner, project, params, firstHash } = await cardWithCover(false);
    const draft = await putCover(owner.token, project.id, 96);
    expect(draft).toMatchObject({ status: 'draft', coverPending: false });
    expect(draft.cover.hash).not.toBe(firstHash);
    expect(await stored(project.id, firstHash)).toBe(false);
    expect((await owner.client.call('listProject', { params })).status).toBe('listed');
    expect(await publicCoverWidth(project.slug)).toBe(96);

    const held = await putCover(owner.token, project.id, 128);
    expect(held.coverPending).toBe(true);
    const heldHash = await heldHashInReview(project.id, project.slug);
    const removed = await owner.client.call('removeCover', { params });
    expect(removed).toMatchObject({ cover: null, coverPending: false });
    expect(await publicCoverWidth(project.slug)).toBe(404);
    expect([await stored(project.id, draft.cover.hash), await stored(project.id, heldHash)]).toEqual([false, false]);
  });

  it('holds a cover changed while a once-listed card was off the listing: relisting shows the approved one', async () => {
    const { owner, project, params, firstHash } = await cardWithCover();
    expect((await owner.client.call('unlistProject', { params })).status).toBe('draft');
    const changed = await putCover(owner.token, project.id, 96);
    expect(changed).toMatchObject({ status: 'draft', coverPending: true, cover: { hash: firstHash } });
    expect((await owner.client.call('listProject', { params })).status).toBe('listed');
    expect(await publicCoverWidth(project.slug)).toBe(64);
    const heldHash = await heldHashInReview(project.id, project.slug);
    expect((await ops('review', 'approve-cover', project.slug)).code).toBe(0);
    expect(await publicCoverWidth(project.slug)).toBe(96);
    expect(await owner.client.call('getCard', { params })).toMatchObject({ coverPending: false, cover: { hash: heldHash } });
  });
});
