import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type Operation, SESSION_COOKIE } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { buildProgram } from '../../cli/program.js';
import { connectorToolNames, connectorTools } from './connector-tools.js';
import { actionName, actions, argumentNames } from './tool-catalog.js';
import { issueToken } from '../../ops/ops.service.js';

// The AI-assistant connector (issues 20 and 29), driven by the MCP SDK's own client over real
// HTTP: its few tools and their size, strict arguments, the command line's names, resources, full
// and read-only connections, the tokens it takes and refuses, and a workspace's walls.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/**
 * A connector token of `person`'s, issued from the account endpoint as the web app does: from a
 * browser session just signed in (minting one is account power, services/api/auth/step-up.ts).
 */
async function connectorToken(person: Person, readOnly = false): Promise<string> {
  const { token: web } = await issueToken(platform.deps.sql, person.email, { kind: 'web' });
  const res = await platform.fetch('/api/me/connector-tokens', {
    method: 'POST',
    json: { name: 'test assistant', readOnly },
    headers: { cookie: `${SESSION_COOKIE}=${web}`, origin: platform.baseUrl },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ readOnly, mcpUrl: `${platform.baseUrl}/mcp` });
  return res.body.token;
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'connector-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A tool's answer: its result, or the refusal it carries ({status, error, reason, …}). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = await client.callTool({ name, arguments: args });
  const text = (answer.content as { type: string; text: string }[])[0]?.text;
  if (!answer.isError) return { result: (answer.structuredContent as { result: any }).result };
  return { refused: JSON.parse(text) };
}

/** Everything the SDK client says on console.warn or stderr while `work` runs. */
async function warningsDuring(work: () => Promise<void>): Promise<string[]> {
  const said: string[] = [];
  const warn = console.warn;
  const error = console.error;
  const write = process.stderr.write;
  console.warn = (...args: unknown[]) => {
    said.push(args.map(String).join(' '));
  };
  console.error = console.warn;
  process.stderr.write = ((chunk: unknown) => {
    said.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    console.warn = warn;
    console.error = error;
    process.stderr.write = write;
  }
  return said;
}

describe('the connector', () => {
  it('lists a few tools in under 40 KB, an action for every operation the table offers, and the two documents', async () => {
    const token = await connectorToken(await platform.person());
    // The list as an assistant receives it, measured in bytes on the wire.
    const res = await fetch(`${platform.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const wire = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(wire).result.tools.length).toBe(connectorToolNames.length + 1);
    expect(Buffer.byteLength(wire)).toBeLessThan(40_000);

    const client = await connect(token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...connectorToolNames, 'help'].sort());
    for (const t of tools) {
      expect(t.inputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description!.length, t.name).toBeGreaterThan(20);
    }
    // Every operation offered is an action some tool lists, and help gives its exact schemas.
    for (const [operation, choice] of Object.entries(connectorTools)) {
      if (!('tool' in choice)) continue;
      const listed = tools.find((t) => t.name === choice.tool)!;
      if (choice.action) expect((listed.inputSchema.properties as any).action.enum, operation).toContain(choice.action);
    }
    const help = await call(client, 'help', { tool: 'links', action: 'create' });
    expect(help.result).toMatchObject({
      route: 'POST /api/projects/:projectId/links',
      input: { additionalProperties: false, required: ['projectId', 'viewerName'] },
    });
    expect(Object.keys(help.result.input.properties)).toContain('expiresInDays');
    expect(help.result.reply.properties.url).toBeTruthy();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      `${platform.baseUrl}/api/manifest.schema.json`,
      `${platform.baseUrl}/api/openapi.json`,
    ]);
    const openapi = await client.readResource({ uri: `${platform.baseUrl}/api/openapi.json` });
    expect(JSON.parse((openapi.contents[0] as { text: string }).text).openapi).toMatch(/^3\.1/);
    await client.close();
  });

  it('lists and calls tools through the official SDK client without a warning (standard JSON Schema only)', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const token = await connectorToken(person);
    const said = await warningsDuring(async () => {
      const client = await connect(token);
      await client.listTools();
      expect((await call(client, 'whoami')).result.email).toBe(person.email);
      expect((await call(client, 'projects', { action: 'ls' })).result.map((p: { id: string }) => p.id)).toContain(project.id);
      expect((await call(client, 'builds', { action: 'ls', projectId: project.id })).result).toHaveLength(1);
      expect((await call(client, 'links', { action: 'create', projectId: project.id, viewerName: 'Quiet' })).result.url).toMatch(/\/r\//);
      expect((await call(client, 'activity', { action: 'feedback', projectId: project.id })).result).toEqual(expect.any(Array));
      expect((await call(client, 'help', { tool: 'activity' })).result.length).toBeGreaterThan(5);
      await client.close();
    });
    expect(said).toEqual([]);
  });

  it('names tools and actions as the pitch command line does, and docs/connector.md maps every one', () => {
    expect(Object.keys(connectorTools).sort()).toEqual(Object.keys(routes).sort());
    // Commands that are a person's own (signing in) or carry bytes (deploy, init writes files).
    const notForAnAssistant = ['login', 'logout', 'init', 'deploy'];
    const offered = Object.values(connectorTools).flatMap((c) => ('tool' in c ? [c] : []));
    for (const command of buildProgram().commands) {
      if (notForAnAssistant.includes(command.name())) continue;
      expect(connectorToolNames, command.name()).toContain(command.name());
      for (const sub of command.commands)
        expect(
          offered.filter((c) => c.tool === command.name()).map((c) => c.action),
          `${command.name()} ${sub.name()}`,
        ).toContain(sub.name());
    }
    const doc = readFileSync(new URL('../../../docs/connector.md', import.meta.url), 'utf8');
    for (const c of offered)
      expect(doc, `${c.tool} ${c.action}`).toContain(c.action ? `| \`${c.tool}\` | \`${c.action}\` |` : `| \`${c.tool}\` | — |`);
    for (const [op, choice] of Object.entries(connectorTools)) {
      if ('leftOut' in choice) expect(choice.leftOut.length, op).toBeGreaterThan(10);
      else expect((routes[op as Operation] as { raw?: boolean }).raw, `${op} carries bytes`).toBeFalsy();
    }
  });

  it('makes a link with a full connection (the url comes back) through the same service as the api, with the same default expiry', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('mcp'), name: 'Connector demo' } });
    const client = await connect(await connectorToken(person));
    const made = await call(client, 'links', { action: 'create', projectId: project.id, viewerName: 'Ada Buyer', expiresInDays: 14 });
    expect(made.result.url).toMatch(/\/r\//);
    expect(made.result.link).toMatchObject({ viewerName: 'Ada Buyer', stage: 'sent' });
    expect(Date.parse(made.result.link.expiresAt) - Date.now()).toBeGreaterThan(13 * 86_400_000);
    // Unnamed, the expiry is the API's own default: the same as a link made over HTTP (the web form's).
    const plain = await call(client, 'links', { action: 'create', projectId: project.id, viewerName: 'Default Days' });
    const overHttp = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Over HTTP' } });
    expect(plain.result.link.expiresAt).not.toBeNull();
    expect(plain.result.link.expiresAt === null).toBe(overHttp.link.expiresAt === null);
    if (overHttp.link.expiresAt)
      expect(Math.abs(Date.parse(plain.result.link.expiresAt) - Date.parse(overHttp.link.expiresAt))).toBeLessThan(3_600_000);
    const links = await person.client.call('listLinks', { params: { projectId: project.id } });
    expect(links.map((l) => l.id).sort()).toEqual([made.result.link.id, plain.result.link.id, overHttp.link.id].sort());
    expect((await call(client, 'whoami')).result.email).toBe(person.email);
    // A body that does not fit is the api's 400, with the field.
    const bad = await call(client, 'links', { action: 'create', projectId: project.id, viewerName: '' });
    expect(bad.refused).toMatchObject({ status: 400, error: 'invalid', issues: [expect.objectContaining({ path: 'viewerName' })] });
    await client.close();
  });

  it('refuses an argument the action does not take, naming the one meant, and makes nothing (the HTTP API ignores it)', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('mcp-strict'), name: 'Strict' } });
    const client = await connect(await connectorToken(person));
    const guessed = await call(client, 'links', { action: 'create', projectId: project.id, viewerName: 'Ada', expiresIn: 7 });
    expect(guessed.refused).toMatchObject({
      status: 400,
      error: 'invalid',
      issues: [{ path: 'expiresIn', message: expect.stringContaining('did you mean "expiresInDays"') }],
    });
    expect(await person.client.call('listLinks', { params: { projectId: project.id } })).toEqual([]);
    // An argument of another action of the same tool, an unknown action, a one-action tool.
    expect((await call(client, 'links', { action: 'ls', projectId: project.id, linkId: 'x' })).refused.issues[0]).toMatchObject({
      path: 'linkId',
    });
    expect((await call(client, 'links', { action: 'list', projectId: project.id })).refused.issues[0]).toMatchObject({
      path: 'action',
      message: expect.stringContaining('did you mean "ls"'),
    });
    expect((await call(client, 'links', { projectId: project.id })).refused.issues[0]).toMatchObject({
      path: 'action',
      message: expect.stringContaining('create, ls'),
    });
    expect((await call(client, 'whoami', { workspace: 'x' })).refused).toMatchObject({ status: 400, issues: [{ path: 'workspace' }] });
    // The HTTP API keeps the spec's rule: a field it does not name is ignored.
    const overHttp = await platform.fetch(`/api/projects/${project.id}/links`, {
      method: 'POST',
      token: person.token,
      json: { viewerName: 'Ada', expiresIn: 7 },
    });
    expect(overHttp.status).toBe(201);
    await client.close();
  });

  it('refuses, on a read-only connection, every change and every address (403), and creates nothing', async () => {
    const person = await platform.person({ plan: 'solo' });
    const project = await person.client.call('createProject', { body: { slug: uniqueSlug('mcp-ro'), name: 'Read only' } });
    const { link } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Existing' } });
    const client = await connect(await connectorToken(person, true));
    const made = await call(client, 'links', { action: 'create', projectId: project.id, viewerName: 'Nope' });
    expect(made.refused).toMatchObject({ status: 403, error: 'role cannot', reason: 'permission' });
    expect((await call(client, 'links', { action: 'reveal', linkId: link.id })).refused).toMatchObject({ status: 403 });
    expect((await call(client, 'room', { action: 'pause', projectId: project.id, message: 'no' })).refused).toMatchObject({ status: 403 });
    expect((await call(client, 'links', { action: 'ls', projectId: project.id })).result.map((l: { id: string }) => l.id)).toEqual([
      link.id,
    ]);
    expect((await person.client.call('listLinks', { params: { projectId: project.id } })).length).toBe(1);
    expect((await person.client.call('getRoomPause', { params: { projectId: project.id } })).viewers).toBe('room');
    await client.close();
  });

  it('keeps the spec’s refusals: a plan limit is 402 with its reason, a missing id 404', async () => {
    const person = await platform.person();
    const client = await connect(await connectorToken(person));
    expect((await call(client, 'pipeline', { action: 'board' })).refused).toMatchObject({
      status: 402,
      reason: 'limit',
      limit: 'pipeline',
    });
    expect((await call(client, 'pipeline', { action: 'ls' })).refused).toMatchObject({ status: 402, reason: 'limit', limit: 'pipeline' });
    expect((await call(client, 'projects', { action: 'show', projectId: crypto.randomUUID() })).refused).toEqual({
      status: 404,
      error: 'not found',
    });
    const checked = await call(client, 'validate', { manifest: { kind: 'static', name: '', apps: [] } });
    expect(checked.result.ok).toBe(false);
    expect(checked.result.problems.map((p: { path: string }) => p.path)).toEqual(expect.arrayContaining(['name']));
    await client.close();
  });

  it("answers `workspace statement` with the API's statement of the month (issue 46), and 400 naming a bad month", async () => {
    const person = await platform.person({ plan: 'pro' });
    const client = await connect(await connectorToken(person));
    const month = new Date().toISOString().slice(0, 7);
    const { result } = await call(client, 'workspace', { action: 'statement', month });
    expect(result).toEqual(await person.client.call('usageStatement', { params: { month } }));
    expect((await call(client, 'workspace', { action: 'statement', month: '2026-13' })).refused).toMatchObject({
      status: 400,
      issues: [{ path: 'month' }],
    });
    await client.close();
  });

  it('answers a CLI token or no token with 401 and WWW-Authenticate; the api refuses the connector token', async () => {
    const person = await platform.person();
    const hello = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    for (const headers of [{ authorization: `Bearer ${person.token}` }, {} as Record<string, string>]) {
      const res = await fetch(`${platform.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(hello),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `resource_metadata="${platform.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
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

  it('walls a connection of workspace A off from everything of workspace B, through every tool that takes an id', async () => {
    const a = await platform.person({ plan: 'team' });
    const b = await platform.person({ plan: 'team' });
    const { project, build } = await deployStaticRoom(platform, b);
    const { link } = await b.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'B viewer' } });
    const notes = await b.client.call('addNote', { params: { linkId: link.id }, body: { body: 'B only' } });
    const page = await b.client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'B page', kind: 'markdown', content: 'x' },
    });
    const bWorkspace = (await b.client.call('listWorkspaces'))[0].id;
    const today = new Date().toISOString().slice(0, 10);
    const ids: Record<string, string> = {
      projectId: project.id,
      buildId: build.id,
      linkId: link.id,
      noteId: notes[0].id,
      pageId: page.id,
      workspaceId: bWorkspace,
      commentId: crypto.randomUUID(),
      groupId: crypto.randomUUID(),
      from: today,
      to: today,
    };
    const client = await connect(await connectorToken(a));
    let checked = 0;
    for (const spec of actions) {
      const keys = argumentNames(spec);
      const idKeys = keys.filter((k) => k in ids && k !== 'from' && k !== 'to');
      if (!idKeys.length) continue;
      const name = actionName(spec);
      const args = {
        ...(spec.action ? { action: spec.action } : {}),
        ...Object.fromEntries(keys.filter((k) => k in ids).map((k) => [k, ids[k]])),
        ...sampleArgs[name],
      };
      const answer = await call(client, spec.tool, args);
      // 503 only for what has not landed yet; everything else is the same 404 as a missing id.
      expect([404, 503], `${name}: ${JSON.stringify(answer)}`).toContain(answer.refused?.status);
      if (answer.refused.status === 404) checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(40);
    expect((await b.client.call('listLinks', { params: { projectId: project.id } }))[0]).toMatchObject({
      viewerName: 'B viewer',
      revokedAt: null,
      stage: 'sent',
    });
    expect((await b.client.call('getProject', { params: { projectId: project.id } })).name).toBe('Room demo');
    expect(await b.client.call('listNotes', { params: { linkId: link.id } })).toHaveLength(1);
    await client.close();
  });
});

/** Arguments of the right shape besides the ids, so that a refusal can only be for the id. */
const sampleArgs: Record<string, Record<string, unknown>> = {
  'projects rename': { name: 'Taken' },
  'links create': { viewerName: 'Intruder' },
  'activity resolve': { resolved: true },
  'activity reply': { body: 'mine' },
  'room add-page': { title: 'X', kind: 'markdown', content: 'x' },
  'room order-apps': { ids: [] },
  'room order-pages': { ids: [] },
  'room pause': { message: 'x' },
  'room set-access': { requireEmail: true },
  'room set-next-steps': { steps: [{ kind: 'question' }] },
  'pipeline stage': { stage: 'no' },
  'pipeline outcome': { outcome: 'lost' },
  'pipeline follow-up': { on: null, note: null },
  'pipeline add-note': { body: 'x' },
  'card save': { title: 'X', line: 'Y' },
  'card scan': { title: 'X', line: 'Y' },
  'card suggest': { title: 'X', line: 'Y' },
  'card check-cover': { path: '/c.png' },
  'card cover-from-build': { path: '/c.png' },
  'community group-rename': { name: 'X' },
};
