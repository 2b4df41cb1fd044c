import { sendStoredImage } from '../../core/infra/http/send-stored-image.js';
import { notFound } from '../../core/rules/errors.js';
import { composeLook, effectiveOf } from '../../core/rules/room-theme.js';
import { workspaceLook } from '../../data/brand-look.js';
import { brandOf } from '../../data/brand.sql.js';
import { listedProjectsOf } from '../../data/listing-subjects.sql.js';
import { blockListedIfFailed } from '../community/cards.service.js';
import { checkWords } from '../community/listing-checks.js';
import { asMember } from '../workspaces/team-access.js';
import type { HandlerGroup } from '../routing/handler.js';
import { imageBody } from '../routing/image-body.js';
import { logoRules } from '../../core/rules/images.js';
import { brandView, themeStateView } from './brand-views.js';
import { assertMayBrand, checkLook, receiveLogo, removeLogo, resetTheme, setBrand, setTheme } from './brand.service.js';

// Spec 4.4, and the logo's address of 4.3 (`GET /api/workspaces/:workspaceId/logo`).

export const brandHandlers = {
  getBrand: async ({ deps, auth }) => brandView(await workspaceLook(deps.sql, auth.workspaceId)),
  setBrand: async ({ deps, auth, body }) => {
    await assertMayBrand(deps.sql, auth, 'setBrand');
    await setBrand(deps.sql, auth.workspaceId, body);
    // The brand name shows in the workspace's listed rooms: one that fails the listing checks takes them off (issue 28, M5).
    if (body.name)
      await blockListedIfFailed(
        deps.sql,
        deps.config,
        await listedProjectsOf(deps.sql, { workspaceId: auth.workspaceId }),
        checkWords('brand', body.name),
      );
    return brandView(await workspaceLook(deps.sql, auth.workspaceId));
  },
  uploadLogo: async ({ deps, auth, req }) => {
    await assertMayBrand(deps.sql, auth, 'uploadLogo');
    await receiveLogo(deps.sql, deps.storage, auth.workspaceId, await imageBody(req, logoRules.maxBytes, 'the logo'));
    return brandView(await workspaceLook(deps.sql, auth.workspaceId));
  },
  removeLogo: async ({ deps, auth }) => {
    await assertMayBrand(deps.sql, auth, 'removeLogo');
    await removeLogo(deps.sql, deps.storage, auth.workspaceId);
    return brandView(await workspaceLook(deps.sql, auth.workspaceId));
  },
  getTheme: async ({ deps, auth }) => themeStateView(await workspaceLook(deps.sql, auth.workspaceId)),
  setTheme: async ({ deps, auth, body }) => {
    await assertMayBrand(deps.sql, auth, 'setTheme');
    await setTheme(deps.sql, auth.workspaceId, body.theme);
    return themeStateView(await workspaceLook(deps.sql, auth.workspaceId));
  },
  resetTheme: async ({ deps, auth }) => {
    await assertMayBrand(deps.sql, auth, 'resetTheme');
    await resetTheme(deps.sql, auth.workspaceId);
    return themeStateView(await workspaceLook(deps.sql, auth.workspaceId));
  },
  /** What the theme (with `accent`, else the stored brand accent) would draw on a plan that shows it; changes nothing. */
  checkTheme: async ({ deps, auth, body }) => {
    const accent = body.accent === undefined ? (await brandOf(deps.sql, auth.workspaceId)).accent : body.accent;
    const asked = { theme: body.theme, accent };
    return { problems: checkLook(asked), effective: effectiveOf(composeLook(asked)) };
  },

  /** To the workspace's members (any of their workspaces, not only the active one); rooms have their own address. */
  workspaceLogo: async ({ deps, auth, params, req, reply }) => {
    await asMember(deps.sql, auth.personId, params.workspaceId);
    const { logo } = await brandOf(deps.sql, params.workspaceId);
    if (!logo) throw notFound();
    const sent = await sendStoredImage(req, reply, deps.storage, logo, 'private, no-cache');
    if (!sent) throw notFound();
    return sent;
  },
} satisfies HandlerGroup;
