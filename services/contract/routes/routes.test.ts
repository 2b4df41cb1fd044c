import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { RouteDef } from '../route.js';
import { routes } from './route-table.js';

const rows: RouteDef[] = Object.values(routes);

const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]).sort();
const ok = (schema: z.ZodType | undefined, value: unknown) => schema!.safeParse(value).success;

// Every endpoint of spec section 4, transcribed by hand, so that a missing row fails.
const spec = [
  // 1: health
  'GET /healthz',
  // 4.1, 4.2: projects, deploy, links, activity, room, feedback
  'GET /api/projects',
  'POST /api/projects',
  'GET /api/projects/:projectId',
  'POST /api/projects/:projectId/name',
  'POST /api/projects/:projectId/delete',
  'POST /api/projects/:projectId/uploads',
  'PUT /api/uploads/:uploadId',
  'POST /api/projects/:projectId/builds',
  'GET /api/projects/:projectId/builds',
  'GET /api/projects/:projectId/builds/history',
  'POST /api/projects/:projectId/builds/:buildId/live',
  'POST /api/projects/:projectId/links',
  'GET /api/projects/:projectId/links',
  'POST /api/links/:linkId/revoke',
  'POST /api/links/:linkId/reveal',
  'POST /api/links/:linkId/reissue',
  'GET /api/projects/:projectId/visits',
  'GET /api/projects/:projectId/responses',
  'GET /api/projects/:projectId/comments',
  'GET /api/pipeline',
  'GET /api/links/:linkId/journey',
  'GET /api/projects/:projectId/analytics/:from/:to',
  'GET /api/analytics/:from/:to',
  'GET /api/projects/:projectId/bounces',
  'POST /api/projects/:projectId/pages',
  'GET /api/projects/:projectId/room',
  'POST /api/projects/:projectId/room/apps',
  'POST /api/projects/:projectId/room/pages',
  'POST /api/projects/:projectId/pages/:pageId/remove',
  'GET /api/projects/:projectId/tour',
  'GET /api/projects/:projectId/history',
  'GET /api/projects/:projectId/pause',
  'POST /api/projects/:projectId/pause',
  'POST /api/projects/:projectId/resume',
  'GET /api/projects/:projectId/access',
  'POST /api/projects/:projectId/access',
  'POST /api/projects/:projectId/preview',
  'GET /api/projects/:projectId/next-steps',
  'POST /api/projects/:projectId/next-steps',
  'GET /api/projects/:projectId/feedback',
  'GET /api/comments/:commentId',
  'POST /api/comments/:commentId/resolve',
  'POST /api/comments/:commentId/reply',
  // 4.2: the pipeline
  'GET /api/board',
  'GET /api/projects/:projectId/board',
  'POST /api/links/:linkId/stage',
  'POST /api/links/:linkId/outcome',
  'POST /api/links/:linkId/follow-up',
  'GET /api/links/:linkId/notes',
  'POST /api/links/:linkId/notes',
  'POST /api/notes/:noteId/remove',
  // 4.3: workspaces and teams
  'GET /api/workspaces',
  'POST /api/workspaces',
  'POST /api/workspaces/:workspaceId/name',
  'GET /api/workspaces/:workspaceId/members',
  'POST /api/workspaces/:workspaceId/members/:userId/role',
  'POST /api/workspaces/:workspaceId/members/:userId/remove',
  'POST /api/workspaces/:workspaceId/leave',
  'GET /api/workspaces/:workspaceId/invitations',
  'POST /api/workspaces/:workspaceId/invitations',
  'POST /api/workspaces/:workspaceId/invitations/:invitationId/revoke',
  'GET /api/invitations/:invitationId',
  'POST /api/invitations/:invitationId/accept',
  'POST /api/workspaces/:workspaceId/delete',
  'GET /api/workspace/people',
  'GET /api/people/:userId/photo',
  'GET /api/workspaces/:workspaceId/logo',
  'GET /api/billing',
  'GET /api/usage/containers',
  // 4.4: brand and theme
  'GET /api/brand',
  'POST /api/brand',
  'PUT /api/brand/logo',
  'POST /api/brand/logo/remove',
  'GET /api/brand/theme',
  'POST /api/brand/theme',
  'POST /api/brand/theme/reset',
  'POST /api/brand/theme/check',
  // 4.5: community and profile
  'GET /api/projects/:projectId/card',
  'POST /api/projects/:projectId/card',
  'PUT /api/projects/:projectId/card/cover',
  'POST /api/projects/:projectId/card/cover/remove',
  'POST /api/projects/:projectId/card/cover/build/check',
  'POST /api/projects/:projectId/card/cover/build',
  'POST /api/projects/:projectId/card/list',
  'GET /api/projects/:projectId/card/listing',
  'POST /api/projects/:projectId/card/appeal',
  'POST /api/projects/:projectId/card/scan',
  'POST /api/projects/:projectId/card/unlist',
  'POST /api/projects/:projectId/card/suggest',
  'GET /api/notices',
  'POST /api/notices/read',
  'POST /api/community/pass',
  'GET /api/me/profile',
  'POST /api/me/profile',
  'GET /api/arrangement',
  'POST /api/arrangement',
  'POST /api/groups',
  'POST /api/groups/:groupId',
  'POST /api/groups/:groupId/delete',
  'POST /api/reports',
  'GET /api/community/people/:handle',
  'GET /api/community/listings',
  'GET /api/community/projects/:slug/cover',
  // 4.6: own account
  'GET /api/me/account',
  'POST /api/me/name',
  'PUT /api/me/photo',
  'POST /api/me/photo/remove',
  'GET /api/me/deletable',
  'POST /api/me/delete',
  'GET /api/me/sign-in',
  'POST /api/me/sign-in/:provider/disconnect',
  'GET /api/me/sessions',
  'POST /api/me/sessions/:sessionId/revoke',
  'POST /api/me/sessions/revoke-all',
  'GET /api/me/preferences',
  'POST /api/me/welcome/seen',
  'POST /api/me/feedback-tab',
  'POST /api/product-feedback',
];

// Endpoints the spec leaves to us (sign-in, spec 5.8) or that serve the contract itself.
const beyondSpec = [
  // Issue 34: a person's alerts and how they hear of them (the spec leaves them "not shown").
  'GET /api/me/alerts',
  'POST /api/me/alerts/read',
  'GET /api/me/alert-settings',
  'POST /api/me/alert-settings',
  'POST /api/auth/email',
  'POST /api/auth/email/verify',
  // Issue 28: the link page reads what a link would do before the person spends it.
  'POST /api/auth/email/check',
  'POST /api/auth/device',
  'POST /api/auth/device/approve',
  'POST /api/auth/device/token',
  'POST /api/auth/logout',
  // Issue 32: a direct upload's end (the parts assembled, the size checked by the store).
  'POST /api/uploads/:uploadId/complete',
  // Issue 19: passkeys (spec 2.10 shows only their count) and the providers' flow (docs/decisions/sign-in-providers-and-passkeys.md).
  'POST /api/auth/passkey/options',
  'POST /api/auth/passkey',
  'POST /api/auth/:provider/start',
  'GET /api/auth/:provider/callback',
  'GET /api/me/passkeys',
  'POST /api/me/passkeys/options',
  'POST /api/me/passkeys',
  'POST /api/me/passkeys/:passkeyId/remove',
  'POST /api/me/passkeys/:passkeyId/rename',
  // Issue 13: a builder reads why their demo's copies stopped (docs/decisions/runner.md).
  'GET /api/projects/:projectId/exits',
  // Issue 14: a comment's screenshot, to members only, and its removal (docs/decisions/screenshots.md).
  'GET /api/comments/:commentId/screenshot',
  'POST /api/comments/:commentId/screenshot/remove',
  // Issue 16: a session picks its active workspace (spec 1 leaves the switch unshown; docs/decisions/workspaces.md).
  'POST /api/workspaces/:workspaceId/activate',
  // Issue 20: connector tokens are issued from the account (docs/decisions/connector.md).
  'POST /api/me/connector-tokens',
  'GET /api/openapi.json',
  'GET /api/manifest.schema.json',
  // Issue 34: signed webhooks (the spec leaves outbound events unshown; docs/decisions/webhooks.md).
  'POST /api/webhooks',
  'GET /api/webhooks',
  'POST /api/webhooks/:endpointId/update',
  'POST /api/webhooks/:endpointId/delete',
  'POST /api/webhooks/:endpointId/rotate',
  'GET /api/webhooks/:endpointId/deliveries',
  'POST /api/webhooks/:endpointId/test',
  'POST /api/webhook-deliveries/:deliveryId/resend',
  // Issue 46: statements billing can read (docs/decisions/usage-and-billing.md).
  'GET /api/usage/statements/:month',
  'GET /api/usage/statements/:month.csv',
  // Issue 34: what a link says of its viewer (their company, for a build that personalises its copies).
  'POST /api/links/:linkId',
];

describe('route table', () => {
  it('names every operation once, under its own key', () => {
    const names = rows.map((r) => r.operation);
    expect(new Set(names).size).toBe(names.length);
    for (const [key, r] of Object.entries(routes)) expect(r.operation).toBe(key);
  });

  it('has each (method, path) once', () => {
    const pairs = rows.map((r) => `${r.method} ${r.path}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('covers exactly the endpoints of the spec, plus sign-in and the contract documents', () => {
    const pairs = rows.map((r) => `${r.method} ${r.path}`).sort();
    expect(new Set(spec).size).toBe(spec.length);
    expect(pairs).toEqual([...spec, ...beyondSpec].sort());
  });

  it('declares params for exactly the path parameters, as plain strings', () => {
    for (const r of rows) {
      const keys = r.params ? Object.keys(r.params.shape).sort() : [];
      expect(keys, r.operation).toEqual(pathParams(r.path));
      // A non-UUID id is an id that does not exist (404), never a 400.
      if (r.params) expect(ok(r.params, Object.fromEntries(keys.map((k) => [k, 'not-a-uuid']))), r.operation).toBe(true);
    }
  });

  it('answers 201 only for the creating POSTs and 204 only for the upload PUT', () => {
    const by = (status: number) =>
      rows
        .filter((r) => r.status === status)
        .map((r) => r.operation)
        .sort();
    expect(by(201)).toEqual(['createBuild', 'createLink', 'createProject', 'createWebhookEndpoint']);
    expect(by(204)).toEqual(['uploadPut']);
    expect((routes.uploadPut as RouteDef).reply).toBeUndefined();
  });

  it('takes raw bytes, never a JSON body, on the PUTs', () => {
    const puts = rows.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.operation).sort()).toEqual(['uploadCover', 'uploadLogo', 'uploadPhoto', 'uploadPut']);
    for (const r of puts) {
      expect(r.raw, r.operation).toBe(true);
      expect(r.body, r.operation).toBeUndefined();
    }
    expect(routes.uploadPut.errors).toContain(411);
  });

  it('leaves the image GETs without a JSON reply', () => {
    for (const r of [routes.workspaceLogo, routes.personPhoto, routes.communityCover] as RouteDef[])
      expect(r.reply, r.operation).toBeUndefined();
  });

  it('needs sign-in except for health, sign-in and the open community endpoints', () => {
    const open = rows
      .filter((r) => r.open)
      .map((r) => r.operation)
      .sort();
    expect(open).toEqual(
      [
        'communityCover',
        'communityListings',
        'communityProfile',
        'deviceStart',
        'deviceToken',
        'emailCheck',
        'emailSignIn',
        'emailVerify',
        'healthz',
        'manifestSchema',
        'openapi',
        'passkeySignIn',
        'passkeySignInOptions',
        'providerCallback',
        'providerStart',
      ].sort(),
    );
  });

  it('lists 404 for every row that names something in its path', () => {
    // Analytics days are not names: a bad day is 422 range. Nor are statement months (400 invalid, 422 future).
    const names = (r: RouteDef) => pathParams(r.path).filter((p) => p !== 'from' && p !== 'to' && p !== 'month');
    for (const r of rows.filter((r) => names(r).length > 0)) expect(r.errors, r.operation).toContain(404);
  });

  it('lists only refusal statuses the spec knows', () => {
    const known = [402, 403, 404, 409, 411, 422, 423, 429, 503];
    for (const r of rows) for (const s of r.errors ?? []) expect(known, r.operation).toContain(s);
  });
});

describe('bodies at the boundary', () => {
  it('renameProject: name 1–80', () => {
    const b = routes.renameProject.body;
    expect(ok(b, { name: 'x'.repeat(80) })).toBe(true);
    expect(ok(b, { name: 'x'.repeat(81) })).toBe(false);
    expect(ok(b, { name: '' })).toBe(false);
  });

  it('createProject: slug 3–40 by length only (format is a 422), name 1–80', () => {
    const b = routes.createProject.body;
    expect(ok(b, { slug: 'abc', name: 'A' })).toBe(true);
    expect(ok(b, { slug: 'ab', name: 'A' })).toBe(false);
    expect(ok(b, { slug: 'a'.repeat(41), name: 'A' })).toBe(false);
    expect(ok(b, { slug: 'Not A Slug', name: 'A' })).toBe(true);
    expect(ok(b, { slug: 'abc' })).toBe(false);
  });

  it('createLink: viewerName 1–80, optional email, expiresInDays integer 1–365', () => {
    const b = routes.createLink.body;
    expect(ok(b, { viewerName: 'Ada' })).toBe(true);
    expect(ok(b, { viewerName: 'Ada', viewerEmail: 'ada@example.com', expiresInDays: 1 })).toBe(true);
    expect(ok(b, { viewerName: 'Ada', expiresInDays: 365 })).toBe(true);
    expect(ok(b, { viewerName: 'Ada', expiresInDays: 0 })).toBe(false);
    expect(ok(b, { viewerName: 'Ada', expiresInDays: 366 })).toBe(false);
    expect(ok(b, { viewerName: 'Ada', expiresInDays: 1.5 })).toBe(false);
    expect(ok(b, { viewerName: 'Ada', expiresInDays: null })).toBe(true); // never expires, on purpose (issue 29)
    expect(ok(b, { viewerName: 'Ada', viewerEmail: 'not an email' })).toBe(false);
    // null, as LinkRec shows it, is no email.
    expect(ok(b, { viewerName: 'Ada', viewerEmail: null })).toBe(true);
    expect(ok(b, { viewerName: '' })).toBe(false);
    expect(ok(b, { viewerName: 'x'.repeat(81) })).toBe(false);
  });

  it('pauseRoom: message required, at most 280, or null', () => {
    const b = routes.pauseRoom.body;
    expect(ok(b, { message: null })).toBe(true);
    expect(ok(b, { message: 'x'.repeat(280) })).toBe(true);
    expect(ok(b, { message: 'x'.repeat(281) })).toBe(false);
    expect(ok(b, {})).toBe(false);
  });

  it('startUpload: a kind and a whole number of bytes', () => {
    const b = routes.startUpload.body;
    expect(ok(b, { kind: 'static', sizeBytes: 1024 })).toBe(true);
    expect(ok(b, { kind: 'image', sizeBytes: 1024 })).toBe(false);
    expect(ok(b, { kind: 'container', sizeBytes: 10.5 })).toBe(false);
  });

  it('createInvitation: an email of at most 254 chars', () => {
    const b = routes.createInvitation.body;
    const email = (n: number) => `${'a'.repeat(64)}@${'b'.repeat(n - 64 - 1 - 4)}.com`;
    expect(ok(b, { email: 'ada@example.com' })).toBe(true);
    expect(ok(b, { email: 'nope' })).toBe(false);
    expect(email(255).length).toBe(255);
    expect(ok(b, { email: email(255) })).toBe(false);
  });

  it('setStage and setOutcome: required, nullable enums', () => {
    expect(ok(routes.setStage.body, { stage: null })).toBe(true);
    expect(ok(routes.setStage.body, { stage: 'engaged' })).toBe(true);
    expect(ok(routes.setStage.body, { stage: 'won' })).toBe(false);
    expect(ok(routes.setStage.body, {})).toBe(false);
    expect(ok(routes.setOutcome.body, { outcome: 'won' })).toBe(true);
    expect(ok(routes.setOutcome.body, { outcome: null })).toBe(true);
    expect(ok(routes.setOutcome.body, { outcome: 'yes' })).toBe(false);
  });

  it('appealListing: message 10–1000', () => {
    const b = routes.appealListing.body;
    expect(ok(b, { message: 'x'.repeat(9) })).toBe(false);
    expect(ok(b, { message: 'x'.repeat(10) })).toBe(true);
    expect(ok(b, { message: 'x'.repeat(1000) })).toBe(true);
    expect(ok(b, { message: 'x'.repeat(1001) })).toBe(false);
  });

  it('list limits: orderApps 100 ids, readNotices 50 (or none), setNextSteps 6 steps', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id${i}`);
    expect(ok(routes.orderApps.body, { ids: ids(100) })).toBe(true);
    expect(ok(routes.orderApps.body, { ids: ids(101) })).toBe(false);
    expect(ok(routes.readNotices.body, {})).toBe(true);
    expect(ok(routes.readNotices.body, { ids: ids(51) })).toBe(false);
    const kinds = ['meeting', 'yes', 'later', 'colleague', 'question', 'no'];
    expect(ok(routes.setNextSteps.body, { steps: kinds.map((kind) => ({ kind })) })).toBe(true);
    expect(ok(routes.setNextSteps.body, { steps: [...kinds, 'yes'].map((kind) => ({ kind })) })).toBe(false);
    // Each kind at most once, and only the six kinds.
    expect(ok(routes.setNextSteps.body, { steps: [{ kind: 'yes' }, { kind: 'yes' }] })).toBe(false);
    expect(ok(routes.setNextSteps.body, { steps: [{ kind: 'maybe' }] })).toBe(false);
  });

  it('setProfile: handle 3–40, bio null or at most 500; arrangeProjects: 500 ungrouped, 30 groups of {id, projects (100)}', () => {
    const profile = routes.setProfile.body;
    expect(ok(profile, { handle: 'abc', bio: null })).toBe(true);
    expect(ok(profile, { handle: 'ab', bio: null })).toBe(false);
    expect(ok(profile, { handle: 'a'.repeat(41), bio: null })).toBe(false);
    expect(ok(profile, { handle: 'abc', bio: 'x'.repeat(500) })).toBe(true);
    expect(ok(profile, { handle: 'abc', bio: 'x'.repeat(501) })).toBe(false);
    expect(ok(profile, { handle: 'abc' })).toBe(false);
    const arrange = routes.arrangeProjects.body;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id${i}`);
    expect(ok(arrange, { ungrouped: ids(500), groups: ids(30).map((id) => ({ id, projects: ids(100) })) })).toBe(true);
    expect(ok(arrange, { ungrouped: ids(501), groups: [] })).toBe(false);
    expect(ok(arrange, { ungrouped: [], groups: ids(31).map((id) => ({ id, projects: [] })) })).toBe(false);
    expect(ok(arrange, { ungrouped: [], groups: [{ id: 'g', projects: ids(101) }] })).toBe(false);
    expect(ok(arrange, { ungrouped: [], groups: [{ projects: [] }] })).toBe(false);
    for (const name of ['', 'x'.repeat(41)]) {
      expect(ok(routes.createGroup.body, { name })).toBe(false);
      expect(ok(routes.renameGroup.body, { name })).toBe(false);
    }
    expect(ok(routes.createGroup.body, { name: 'x'.repeat(40) })).toBe(true);
  });

  it('setBrand and setTheme: #rrggbb colours, known radius and font', () => {
    expect(ok(routes.setBrand.body, { name: null, accent: null })).toBe(true);
    expect(ok(routes.setBrand.body, { name: 'Acme', accent: '#12abEF' })).toBe(true);
    expect(ok(routes.setBrand.body, { name: 'Acme', accent: 'red' })).toBe(false);
    expect(ok(routes.setTheme.body, { theme: { radius: 'soft', font: 'serif', background: '#ffffff' } })).toBe(true);
    expect(ok(routes.setTheme.body, { theme: { radius: 'pill' } })).toBe(false);
    expect(ok(routes.setTheme.body, { theme: { background: 'white' } })).toBe(false);
  });

  it('reportProject: a known reason and detail of at most 1000', () => {
    const b = routes.reportProject.body;
    expect(ok(b, { slug: 'demo', reason: 'spam' })).toBe(true);
    expect(ok(b, { slug: 'demo', reason: 'rude' })).toBe(false);
    expect(ok(b, { slug: 'demo', reason: 'spam', detail: 'x'.repeat(1001) })).toBe(false);
  });

  it('createBuild: the manifest is checked strictly, the body around it is not', () => {
    const b = routes.createBuild.body;
    const manifest = { kind: 'static', name: 'Demo', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] };
    expect(ok(b, { uploadId: 'u1', manifest })).toBe(true);
    expect(ok(b, { uploadId: 'u1', manifest, note: 'x'.repeat(200), extra: true })).toBe(true);
    expect(ok(b, { uploadId: 'u1', manifest, note: 'x'.repeat(201) })).toBe(false);
    expect(ok(b, { uploadId: 'u1', manifest, note: null })).toBe(true);
    expect(ok(b, { uploadId: 'u1', manifest: { ...manifest, extra: true } })).toBe(false);
    expect(ok(b, { uploadId: 'u1' })).toBe(false);
  });

  it('createBuild: an empty body is told of both the manifest and the upload at once', () => {
    const result = routes.createBuild.body.safeParse({});
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['manifest', 'uploadId']);
    expect(routes.createBuild.body.safeParse(null).success).toBe(false);
  });

  it('ignores fields an endpoint does not name, and strips them', () => {
    const parsed = routes.renameProject.body.parse({ name: 'New', slug: 'sneaky', workspaceId: 'other' });
    expect(parsed).toEqual({ name: 'New' });
    expect(routes.createLink.body.parse({ viewerName: 'Ada', url: 'x' })).toEqual({ viewerName: 'Ada' });
    expect(routes.pauseRoom.body.parse({ message: null, until: 'tomorrow' })).toEqual({ message: null });
  });
});

describe('replies', () => {
  it('strip fields the contract does not name', () => {
    const project = {
      id: 'p1',
      slug: 'demo',
      name: 'Demo',
      visibility: 'private',
      liveBuildId: null,
      roomUrl: 'https://demo.example.com/',
      createdAt: '2026-11-21T09:12:01.000Z',
      workspaceId: 'secret',
    };
    expect(routes.getProject.reply.parse(project)).not.toHaveProperty('workspaceId');
  });

  it('never carry a link address in a link record', () => {
    const link = {
      id: 'l1',
      viewerName: 'Ada',
      viewerEmail: null,
      expiresAt: null,
      revokedAt: null,
      stage: 'sent',
      lastOpenedAt: null,
      url: 'https://x.example/k',
    };
    expect(routes.revokeLink.reply.parse(link)).not.toHaveProperty('url');
    expect(routes.board.reply.element.shape).toHaveProperty('suggested');
  });
});
