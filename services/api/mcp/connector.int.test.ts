import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type Operation } from '../../contract/routes/route-table.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { connectorTools } from './connector-tools.js';
import { issueToken } from '../../ops/ops.service.js';
import { SESSION_COOKIE } from '../../contract/common.js';

// The AI-assistant connector (issue 20), driven by the MCP SDK's own client over real HTTP: its
// tools and resources, full and read-only connections, the tokens it takes and refuses, and a
// workspace's walls.

let platform: Platform;
beforeAll(async () => { platform = await startPlatform({ workers: true }); });
afterAll(async () => { await platform.close(); });

type Person = Awaited<ReturnType<Platform['person']>>;

/**
 * A connector token of `person`'s, issued from the account endpoint as the web app does: from a
 * browser session just signed in (minting one is account power, services/api/auth/step-up.ts).
 */
async function connectorToken(person: Person, readOnly = false): Promise<string> {
  const { token: web } = await issueToken(platform.deps.sql, person.email, { kind: 'web' });
  const res = await platform.fetch('/api/me/connector-tokens', {
    method: 'POST', json: { name: 'test assistant', readOnly }, headers: { cookie: `${SESSION_COOKIE}=${web}`, origin: platform.baseUrl },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ readOnly, mcpUrl: `${platform.baseUrl}/mcp` });
  return res.body.token;
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'connector-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${platform.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A tool's answer: its result, or the refusal it carries ({status, error, reason, …}). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = await client.callTool({ name, arguments: args });
  const text = (answer.content as { type: string; text: string }[])[0]?.text;
  if (!answer.isError) return { result: (answer.structuredContent as { result: any }).result };
  // The SDK itself answers arguments that do not fit the tool's input schema, in its own words.
  return text.startsWith('{') ? { refused: JSON.parse(text) } : { refused: { status: 400, error: 'invalid', message: text } };
}

describe('the connector', () => {
  it('lists a tool for every operation the table offers, each with input and output schemas, and the two documents', async () => {
    const client = await connect(await connectorToken(await platform.person()));
    const { tools } = await client.listTools();
    const offered = Object.values(connectorTools).flatMap((c) => ('tool' in c ? [c.tool] : []));
    expect(tools.map((t) => t.name).sort()).toEqual([...offered, 'check_manifest'].sort());
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description!.length, t.name).toBeGreaterThan(20);
    }
    for (const needed of ['list_projects', 'build_history', 'make_live', 'create_link', 'list_links', 'revoke_link', 'reveal_link', 'pause_room', 'resume_room',
      'room_history', 'preview_pass', 'list_visits', 'list_responses', 'list_comments', 'reply_to_comment', 'board', 'project_analytics', 'container_usage']) {
      expect(offered).toContain(needed);
    }
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([`${platform.baseUrl}/api/manifest.schema.json`, `${platform.baseUrl}/api/openapi.json`]);
    const openapi = await client.readResource({ uri: `${platform.baseUrl}/api/openapi.json` });
    expect(JSON.parse((openapi.contents[0] as { text: string }).text).openapi).toMatch(/^3\.1/);
    await client.close();
  });

  it('names every operation of the contract once: a tool, or left out with a reason; docs/connector.md lists every tool', () => {
    expect(Object.keys(connectorTools).sort()).toEqual(Object.keys(routes).sort());
    const doc = readFileSync(new URL('../../../docs/connector.md', import.meta.url), 'utf8');
    for (const c of Object.values(connectorTools)) if ('tool' in c) expect(doc, c.tool).toContain(`| \`${c.tool}\` |`);
    for (const [op, choice] of Object.entries(connectorTools)) {
      if ('leftOut' in choice) expect(choice.leftOut.length, op).toBeGreaterThan(10);
      else expect((routes[op as Operation] as { raw?: boolean }).raw, `${op} carries bytes`).toBeFalsy();
    }
  });

  it('makes a link with a full connection (the url comes back) through the same service as the api', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('mcp'), name: 'Connector demo' } });
    const client = await connect(await connectorToken(person));
    const made = await call(client, 'create_link', { projectId: project.id, viewerName: 'Ada Buyer', expiresInDays: 14 });
    expect(made.result.url).toMatch(/\/r\//);
    expect(made.result.link).toMatchObject({ viewerName: 'Ada Buyer', stage: 'sent' });
    const links = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(links.map((l) => l.id)).toEqual([made.result.link.id]);
    expect((await call(client, 'whoami')).result.email).toBe(person.email);
    // A body that does not fit is the api's 400, with the field.
    const bad = await call(client, 'create_link', { projectId: project.id, viewerName: '' });
    expect(bad.refused).toMatchObject({ status: 400, error: 'invalid', message: expect.stringContaining('viewerName') });
    await client.close();
  });

  it('refuses, on a read-only connection, every change and every address (403), and creates nothing', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('mcp-ro'), name: 'Read only' } });
    const { link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Existing' } });
    const client = await connect(await connectorToken(person, true));
    const made = await call(client, 'create_link', { projectId: project.id, viewerName: 'Nope' });
    expect(made.refused).toMatchObject({ status: 403, error: 'role cannot', reason: 'permission' });
    expect((await call(client, 'reveal_link', { linkId: link.id })).refused).toMatchObject({ status: 403 });
    expect((await call(client, 'pause_room', { projectId: project.id, message: 'no' })).refused).toMatchObject({ status: 403 });
    expect((await call(client, 'list_links', { projectId: project.id })).result.map((l: { id: string }) => l.id)).toEqual([link.id]);
    expect((await person.client.call('listLinks', { params: { projectId: project.id } })).length).toBe(1);
    expect((await person.client.call('getRoomPause', { params: { projectId: project.id } })).viewers).toBe('room');
    await client.close();
  });

  it('keeps the spec’s refusals: a plan limit is 402 with its reason, a missing id 404', async () => {
    const person = await platform.person();
    const client = await connect(await connectorToken(person));
    expect((await call(client, 'board')).refused).toMatchObject({ status: 402, reason: 'limit', limit: 'pipeline' });
    expect((await call(client, 'pipeline')).refused).toMatchObject({ status: 402, reason: 'limit', limit: 'pipeline' });
    expect((await call(client, 'get_project', { projectId: crypto.randomUUID() })).refused).toEqual({ status: 404, error: 'not found' });
    const checked = await call(client, 'check_manifest', { manifest: { kind: 'static', name: '', apps: [] } });
    expect(checked.result.ok).toBe(false);
    expect(checked.result.problems.map((p: { path: string }) => p.path)).toEqual(expect.arrayContaining(['name']));
    await client.close();
  });

  it('answers a CLI token or no token with 401 and WWW-Authenticate; the api refuses the connector token', async () => {
    const person = await platform.person();
    const hello = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    for (const headers of [{ authorization: `Bearer ${person.token}` }, {} as Record<string, string>]) {
      const res = await fetch(`${platform.baseUrl}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(hello) });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${platform.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    }
    await expect(connect(person.token)).rejects.toThrow();
    const metadata = await (await fetch(`${platform.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${platform.baseUrl}/mcp`, bearer_methods_supported: ['header'] });

    const token = await connectorToken(person);
    expect((await platform.fetch('/api/me/account', { token })).status).toBe(401);
    expect((await platform.fetch('/api/me/connector-tokens', { method: 'POST', token, json: {} })).status).toBe(401);

    // Listed and ended with the person's sessions: the connection stops at once.
    const client = await connect(token);
    const listed = (await person.client.call('sessions')).find((s) => s.device === 'AI-assistant connector');
    expect(listed).toMatchObject({ current: false, signInMethod: 'connector' });
    await person.client.call('revokeSession', { params: { sessionId: listed!.id } });
    await expect(client.listTools()).rejects.toThrow();
    await expect(connect(token)).rejects.toThrow();
  });

  it("walls a connection of workspace A off from everything of workspace B, through every tool that takes an id", async () => {
    const a = await platform.person({ plan: 'team' });
    const b = await platform.person({ plan: 'team' });
    const { project, build } = await deployStaticRoom(platform, b);
    const { link } = await b.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'B viewer' } });
    const notes = await b.client.call('addNote', { params: { linkId: link.id }, body: { body: 'B only' } });
    const page = await b.client.call('addPage', { params: { projectId: project.id }, body: { title: 'B page', kind: 'markdown', content: 'x' } });
    const bWorkspace = (await b.client.call('listWorkspaces'))[0].id;
    const today = new Date().toISOString().slice(0, 10);
    const ids: Record<string, string> = {
      projectId: project.id, buildId: build.id, linkId: link.id, noteId: notes[0].id, pageId: page.id, workspaceId: bWorkspace,
      commentId: crypto.randomUUID(), groupId: crypto.randomUUID(), from: today, to: today,
    };
    const client = await connect(await connectorToken(a));
    const { tools } = await client.listTools();
    let checked = 0;
    for (const t of tools) {
      const keys = Object.keys((t.inputSchema.properties ?? {}) as object);
      const idKeys = keys.filter((k) => k in ids && k !== 'from' && k !== 'to');
      if (!idKeys.length) continue;
      const args = Object.fromEntries(keys.filter((k) => k in ids).map((k) => [k, ids[k]]));
      const answer = await call(client, t.name, { ...args, ...sampleArgs[t.name] });
      // 503 only for what has not landed yet; everything else is the same 404 as a missing id.
      expect([404, 503], `${t.name}: ${JSON.stringify(answer)}`).toContain(answer.refused?.status);
      if (answer.refused.status === 404) checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(40);
    expect((await b.client.call('listLinks', { params: { projectId: project.id } }))[0]).toMatchObject({ viewerName: 'B viewer', revokedAt: null, stage: 'sent' });
    expect((await b.client.call('getProject', { params: { projectId: project.id } })).name).toBe('Room demo');
    expect(await b.client.call('listNotes', { params: { linkId: link.id } })).toHaveLength(1);
    await client.close();
  });
});

/** Arguments of the right shape besides the ids, so that a refusal can only be for the id. */
const sampleArgs: Record<string, Record<string, unknown>> = {
  rename_project: { name: 'Taken' }, create_link: { viewerName: 'Intruder' }, resolve_comment: { resolved: true },
  reply_to_comment: { body: 'mine' }, add_page: { title: 'X', kind: 'markdown', content: 'x' }, order_apps: { ids: [] },
  order_pages: { ids: [] }, pause_room: { message: 'x' }, set_access: { requireEmail: true }, set_next_steps: { steps: [{ kind: 'question' }] },
  set_stage: { stage: 'no' }, set_outcome: { outcome: 'lost' }, follow_up: { on: null, note: null }, add_note: { body: 'x' },
  save_card: { title: 'X', line: 'Y' }, scan_card: { title: 'X', line: 'Y' }, suggest_wording: { title: 'X', line: 'Y' },
  check_build_cover: { path: '/c.png' }, cover_from_build: { path: '/c.png' }, rename_group: { name: 'X' },
};
