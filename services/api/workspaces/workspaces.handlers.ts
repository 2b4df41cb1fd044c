import type { Handlers } from '../routing/handler.js';
import { billingOf } from './billing.service.js';
import { workspacesOf } from '../../data/workspaces.sql.js';
import { brandBadges } from '../../data/brand.sql.js';

export const workspaceHandlers: Handlers = {
  listWorkspaces: async ({ deps, auth }) => {
    const rows = await workspacesOf(deps.sql, auth.personId);
    const brands = await brandBadges(deps.sql, rows.map((w) => w.id));
    return rows.map((w) => ({ id: w.id, name: w.name, kind: w.kind, role: w.role, active: w.id === auth.workspaceId, brand: brands.get(w.id) ?? null }));
  },
  getBilling: ({ deps, auth }) => billingOf(deps.sql, auth.workspaceId),
};
