import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { tgz } from '../support/archives.js';
import { desktopChrome } from '../support/browser.js';
import type { Platform } from '../support/platform.js';
import { uniqueSlug } from '../support/refusal.js';
import { deployStaticRoom } from '../support/room.js';
import { platformAndChromium } from '../support/suites.js';
import { expectAccessible, openArea, screenshots, signedInBuilder, watchProblems } from '../support/web-app.js';

// The projects area of the web app: the list (empty, then with a project made through the page,
// a taken address refused beside its field), renaming and deleting with the slug typed; one
// project's builds (make live, roll back), links (make, reveal, revoke) and room (pause).

let platform: Platform;
let browser: Browser;
platformAndChromium((p, b) => ([platform, browser] = [p, b]));

type Person = Awaited<ReturnType<Platform['person']>>;

/** A second static build of the project, not live. */
async function anotherBuild(person: Person, projectId: string) {
  const bytes = await tgz({ 'index.html': '<!doctype html><title>Two</title><h1>Second</h1>' });
  const { uploadId, putUrl } = await person.client.call('startUpload', {
    params: { projectId },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  const put = await platform.fetch(putUrl, {
    method: 'PUT',
    token: person.token,
    body: bytes,
    headers: { 'content-type': 'application/gzip' },
  });
  expect(put.status).toBe(204);
  const manifest = {
    kind: 'static',
    name: 'Room demo',
    output: 'dist',
    apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }],
  };
  return person.client.call('createBuild', { params: { projectId }, body: { uploadId, manifest: manifest as never, note: 'second take' } });
}

const dialog = (page: Page) => page.getByRole('dialog');

it('lists no projects with the deploy command, creates one, refuses a taken address beside it, renames and deletes it with the slug typed', async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'solo' });
  const page = await context.newPage();
  const problems = watchProblems(page, [/^409 .*\/api\/projects$/, /status of 409/]);
  await openArea(page, `${platform.baseUrl}/`);
  await page.getByText('No projects yet.').waitFor();
  expect(await page.locator('.empty code').first().textContent()).toBe('pitch deploy');
  await expectAccessible(page);
  await screenshots(page, 'projects-empty');

  const slug = uniqueSlug('wp');
  await page.getByLabel('Name', { exact: true }).fill('Acme checkout');
  await page.getByLabel('Address (slug)').fill(slug);
  await page.getByRole('button', { name: 'Create project' }).click();
  // Into the new project, whose Builds tab says how to deploy to it and checks a pitch.json.
  await page.waitForURL(/\/projects\/[\w-]+$/);
  const [made] = await person.client.call('listProjects');
  expect(made).toMatchObject({ name: 'Acme checkout', slug });
  expect(page.url()).toBe(`${platform.baseUrl}/projects/${made.id}`);
  await page.getByText(`pitch deploy --project ${slug}`).waitFor();
  const manifestText = page.getByLabel('Or paste it');
  await manifestText.fill(JSON.stringify({ kind: 'static', name: 'Acme', output: 'dist', apps: [{ id: 'Web', name: 'Web', path: '/' }] }));
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.locator('#manifest-problems li').first().waitFor();
  expect(await page.locator('#manifest-problems').textContent()).toContain('apps[0].id');
  await manifestText.fill(
    JSON.stringify({ kind: 'static', name: 'Acme', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] }),
  );
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.getByText('It fits: “Acme” is a manifest this platform takes.').waitFor();
  await openArea(page, `${platform.baseUrl}/`);

  // The same address again: the API's 409 in words, beside the address field.
  await page.getByLabel('Name', { exact: true }).fill('Acme again');
  await page.getByLabel('Address (slug)').fill(slug);
  await page.getByRole('button', { name: 'Create project' }).click();
  const refusal = page.locator('.slug-field [role="alert"]');
  await refusal.waitFor();
  expect(await refusal.textContent()).toMatch(/taken/i);
  expect(await person.client.call('listProjects')).toHaveLength(1);
  await expectAccessible(page);
  await screenshots(page, 'projects');

  await page.getByRole('link', { name: 'Acme checkout' }).click();
  await page.waitForURL(`${platform.baseUrl}/projects/${made.id}`);
  await page.getByRole('heading', { level: 1, name: 'Acme checkout' }).waitFor();
  await page.getByRole('button', { name: 'Rename' }).click();
  await dialog(page).getByLabel('Name').fill('Acme checkout v2');
  await dialog(page).getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('heading', { level: 1, name: 'Acme checkout v2' }).waitFor();
  expect((await person.client.call('getProject', { params: { projectId: made.id } })).name).toBe('Acme checkout v2');

  await page.getByRole('button', { name: 'Delete project' }).click();
  const remove = dialog(page).getByRole('button', { name: 'Delete forever' });
  expect(await remove.isDisabled()).toBe(true);
  await dialog(page)
    .getByLabel(/to confirm/)
    .fill(slug.slice(0, -1));
  expect(await remove.isDisabled()).toBe(true);
  await dialog(page)
    .getByLabel(/to confirm/)
    .fill(slug);
  await remove.click();
  await page.waitForURL(`${platform.baseUrl}/projects`);
  await page.getByText('No projects yet.').waitFor();
  expect(await person.client.call('listProjects')).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});

it("shows a deployed project's builds, makes an older one live and rolls back, makes, reveals and revokes a link, and pauses the room with a note", async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'team' });
  const { project, build: first } = await deployStaticRoom(platform, person);
  const second = await anotherBuild(person, project.id);
  const projectId = project.id;
  const page = await context.newPage();
  const problems = watchProblems(page);

  // Builds: the live one marked; the newer one made live, then the first rolled back to.
  await openArea(page, `${platform.baseUrl}/projects/${projectId}`);
  await page.getByRole('heading', { name: 'Builds (2)' }).waitFor();
  expect(await page.locator('.badge.live').count()).toBe(1);
  await expectAccessible(page);
  await screenshots(page, 'project-builds');
  await page.getByRole('button', { name: 'Make live' }).click();
  await dialog(page).getByRole('button', { name: 'Make live' }).click();
  await expect.poll(async () => (await person.client.call('getProject', { params: { projectId } })).liveBuildId).toBe(second.id);
  await page.getByRole('button', { name: 'Roll back to this build' }).click();
  await dialog(page).getByRole('button', { name: 'Roll back' }).click();
  await expect.poll(async () => (await person.client.call('getProject', { params: { projectId } })).liveBuildId).toBe(first.id);
  await page.getByText('Rollback', { exact: true }).waitFor();

  // Links: made in the page, read back through the API, revealed, revoked.
  await page.getByRole('link', { name: 'Links', exact: true }).click();
  await page.getByText('No links yet.').waitFor();
  await expectAccessible(page);
  await page.getByLabel("Viewer's name").fill('Ada Lovelace');
  await page.getByLabel("Viewer's email (optional)").fill('ada@example.com');
  await page.getByRole('button', { name: 'Make link' }).click();
  const made = page.getByLabel('Address for Ada Lovelace').first();
  await made.waitFor();
  const url = await made.inputValue();
  expect(url).toMatch(/^https?:\/\//);
  const [link] = await person.client.call('listLinks', { params: { projectId } });
  expect(link).toMatchObject({ viewerName: 'Ada Lovelace', viewerEmail: 'ada@example.com', revokedAt: null });
  expect(link.expiresAt).not.toBeNull();
  await page.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
  expect(await page.getByRole('link', { name: 'Ada Lovelace' }).getAttribute('href')).toBe(`/journey/${link.id}`);
  await page.getByRole('button', { name: 'Reveal link for Ada Lovelace' }).click();
  await expect.poll(() => page.getByLabel('Address for Ada Lovelace').count()).toBe(2);
  expect(await page.getByLabel('Address for Ada Lovelace').last().inputValue()).toBe(url);
  await expectAccessible(page);
  await screenshots(page, 'project-links');
  await page.getByRole('button', { name: 'Revoke link for Ada Lovelace' }).click();
  await dialog(page).getByRole('button', { name: 'Revoke link' }).click();
  await expect.poll(async () => (await person.client.call('listLinks', { params: { projectId } }))[0].revokedAt).not.toBeNull();
  await page.getByText('No open links.', { exact: false }).waitFor();

  // Room: paused with a note for viewers; the API says so; the history shows it.
  await page.getByRole('link', { name: 'Room', exact: true }).click();
  await page.getByRole('button', { name: 'Pause room' }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  await page.getByRole('button', { name: 'Pause room' }).click();
  await dialog(page).getByLabel('Note for viewers (optional)').fill('Back at noon');
  await dialog(page).getByRole('button', { name: 'Pause the room' }).click();
  await expect.poll(async () => (await person.client.call('getRoomPause', { params: { projectId } })).viewers).toBe('paused');
  expect((await person.client.call('getRoomPause', { params: { projectId } })).owner).toMatchObject({ message: 'Back at noon' });
  await page.getByRole('button', { name: 'Resume room' }).waitFor();
  await page.getByText('paused the room').waitFor();
  // The apps' order, by keyboard-reachable buttons: Admin moved up, read back through the API.
  const before = (await person.client.call('getRoomSetup', { params: { projectId } })).appOrder ?? ['web', 'admin'];
  const name = { web: 'Website', admin: 'Admin' }[before[1] as 'web' | 'admin'];
  await page.getByRole('button', { name: new RegExp(`move ${name} up`) }).click();
  await expect
    .poll(async () => (await person.client.call('getRoomSetup', { params: { projectId } })).appOrder)
    .toEqual([before[1], before[0]]);
  await expectAccessible(page);
  await screenshots(page, 'project-room');
  // What happens next: a meeting step added with its booking address, saved, read back.
  await page.getByLabel('Step to add').selectOption('meeting');
  await page.getByLabel('Booking address').fill('https://cal.example.com/grace');
  await page.getByRole('button', { name: 'Save steps' }).click();
  await expect
    .poll(async () => (await person.client.call('getNextSteps', { params: { projectId } })).steps.find((s) => s.kind === 'meeting')?.url)
    .toBe('https://cal.example.com/grace');
  // The preview: a tab opened on the click, sent to the one-time address.
  const popup = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Open the room' }).click();
  const tab = await popup;
  await expect.poll(() => tab.url()).toMatch(/^http/);
  await tab.close();
  await page.getByRole('button', { name: 'Resume room' }).click();
  await expect.poll(async () => (await person.client.call('getRoomPause', { params: { projectId } })).viewers).toBe('room');
  expect(problems).toEqual([]);
  await context.close();
});

it('asks a new builder for a name, which viewers then meet; links no public page while none exists; a newer build made live again is no rollback (issue 29)', async () => {
  const { person, context } = await signedInBuilder(platform, browser, { plan: 'solo' });
  const page = await context.newPage();
  const problems = watchProblems(page);

  // The first sign-in's light step: a name, or "Not now". Saved, it names the workspace too.
  await openArea(page, `${platform.baseUrl}/`);
  const step = page.getByRole('region', { name: 'What should viewers call you?' });
  await step.waitFor();
  await expectAccessible(page);
  await screenshots(page, 'projects-name-step');
  await step.getByLabel('Your name').fill('Maya Rao');
  await step.getByRole('button', { name: 'Save my name' }).click();
  await step.waitFor({ state: 'detached' });
  expect(await person.client.call('whoami')).toMatchObject({
    name: 'Maya Rao',
    nameChosen: true,
    workspace: { name: "Maya Rao's workspace" },
  });

  // A private project (not listed): the header links no /p/<slug>, which would be a 404.
  const { project, build: first } = await deployStaticRoom(platform, person);
  expect((await fetch(project.roomUrl, { headers: { 'user-agent': desktopChrome } })).status).toBe(404);
  await openArea(page, `${platform.baseUrl}/projects/${project.id}`);
  await page.getByRole('heading', { name: 'Builds (1)' }).waitFor();
  expect(await page.locator('a[href*="/p/"]').count()).toBe(0);
  await page.getByText('Not public: viewers come in by the links you make.').waitFor();
  // Its size as the command line prints it: units of 1,024, spelled MB (docs/decisions/contract-and-wire.md).
  const mb = `${(first.sizeBytes / 1024 / 1024).toFixed(1)} MB`;
  expect(await page.locator('tbody').textContent()).toContain(
    `Room demo · ${first.sizeBytes >= 1024 * 1024 ? mb : `${Math.round(first.sizeBytes / 1024)} KB`}`,
  );

  // The newer build made live, then the first rolled back to: making the newer one live again
  // is offered, said and recorded as making it live, not as a rollback.
  const second = await anotherBuild(person, project.id);
  await person.client.call('makeLive', { params: { projectId: project.id, buildId: second.id } });
  await person.client.call('makeLive', { params: { projectId: project.id, buildId: first.id } });
  await openArea(page, `${platform.baseUrl}/projects/${project.id}`);
  await page.getByRole('heading', { name: 'Builds (2)' }).waitFor();
  expect(await page.getByRole('button', { name: /^Roll back/ }).count()).toBe(0);
  await page.getByRole('button', { name: `Make live build ${second.id.slice(0, 8)}` }).click();
  await dialog(page).getByRole('heading', { name: 'Make this build live?' }).waitFor();
  await dialog(page).getByRole('button', { name: 'Make live' }).click();
  await expect
    .poll(async () => (await person.client.call('getProject', { params: { projectId: project.id } })).liveBuildId)
    .toBe(second.id);
  const history = await person.client.call('buildHistory', { params: { projectId: project.id } });
  expect(history.find((b) => b.id === second.id)!.releases.map((r) => (r as { rollback: boolean }).rollback)).toEqual([false, false]);
  expect(history.find((b) => b.id === first.id)!.releases.map((r) => (r as { rollback: boolean }).rollback)).toEqual([true, false]);

  // A viewer of a link meets the builder's name, not the email's local part.
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada Buyer' } });
  const viewer = await browser.newContext();
  const room = await viewer.newPage();
  await room.goto(url);
  await expect.poll(() => room.locator('.who-sent').first().textContent()).toContain('Maya Rao sent you this link.');
  expect(await room.content()).not.toContain(person.email.split('@')[0]);
  await viewer.close();
  expect(problems).toEqual([]);
  await context.close();
});
