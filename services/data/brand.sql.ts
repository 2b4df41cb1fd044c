import type { Theme } from '@demo-rooms/contract';
import type { Db } from '../core/infra/db.js';
import type { ImageType } from '../core/rules/images.js';

// A workspace's brand and theme (migrations/00015): the name, accent, theme tokens and the logo's
// record. The logo's bytes live in the object store under `logoKey`.

export interface LogoRow {
  key: string;
  type: ImageType;
  width: number;
  height: number;
  bytes: number;
  hash: string;
  at: Date;
}

export interface BrandRow {
  workspaceId: string;
  /** The workspace's own name, for the header when the brand has none. */
  workspaceName: string;
  name: string | null;
  accent: string | null;
  theme: Theme | null;
  logo: LogoRow | null;
}

/** Where a logo's bytes live: named by their hash, so a new logo never overwrites one being served. */
export const logoPrefix = (workspaceId: string) => `logos/${workspaceId}/`;
export const logoKey = (workspaceId: string, hash: string) => `${logoPrefix(workspaceId)}${hash}`;

type Raw = {
  workspaceId: string;
  workspaceName: string;
  name: string | null;
  accent: string | null;
  theme: string | null;
  logoKey: string | null;
  logoType: ImageType | null;
  logoWidth: number | null;
  logoHeight: number | null;
  logoBytes: number | null;
  logoHash: string | null;
  logoAt: Date | null;
};

/** The brand of a workspace; every field null when it never set one. */
export async function brandOf(sql: Db, workspaceId: string): Promise<BrandRow> {
  // The theme is read as text: the client's transforms must not touch its keys.
  const [r] = await sql<Raw[]>`
    select w.id as workspace_id, w.name as workspace_name, b.name, b.accent, b.theme::text as theme,
           b.logo_key, b.logo_type, b.logo_width, b.logo_height, b.logo_bytes, b.logo_hash, b.logo_at
    from workspaces w left join workspace_brands b on b.workspace_id = w.id
    where w.id = ${workspaceId}`;
  return {
    workspaceId: r.workspaceId,
    workspaceName: r.workspaceName,
    name: r.name,
    accent: r.accent,
    theme: r.theme ? (JSON.parse(r.theme) as Theme) : null,
    logo: r.logoKey
      ? {
          key: r.logoKey,
          type: r.logoType!,
          width: r.logoWidth!,
          height: r.logoHeight!,
          bytes: r.logoBytes!,
          hash: r.logoHash!,
          at: r.logoAt!,
        }
      : null,
  };
}

export async function saveBrandWords(sql: Db, workspaceId: string, brand: { name: string | null; accent: string | null }) {
  await sql`
    insert into workspace_brands (workspace_id, name, accent) values (${workspaceId}, ${brand.name}, ${brand.accent})
    on conflict (workspace_id) do update set name = excluded.name, accent = excluded.accent, updated_at = now()`;
}

export async function saveTheme(sql: Db, workspaceId: string, theme: Theme | null) {
  const json = theme ? sql.json(theme) : null;
  await sql`
    insert into workspace_brands (workspace_id, theme) values (${workspaceId}, ${json})
    on conflict (workspace_id) do update set theme = excluded.theme, updated_at = now()`;
}

/** Records the new logo; answers the key of the one it replaced (to delete), if any. */
export async function saveLogo(sql: Db, workspaceId: string, logo: Omit<LogoRow, 'at'>): Promise<string | null> {
  const [before] = await sql<{ logoKey: string | null }[]>`
    select logo_key from workspace_brands where workspace_id = ${workspaceId} for update`;
  await sql`
    insert into workspace_brands (workspace_id, logo_key, logo_type, logo_width, logo_height, logo_bytes, logo_hash, logo_at)
    values (${workspaceId}, ${logo.key}, ${logo.type}, ${logo.width}, ${logo.height}, ${logo.bytes}, ${logo.hash}, now())
    on conflict (workspace_id) do update set
      logo_key = excluded.logo_key, logo_type = excluded.logo_type, logo_width = excluded.logo_width, logo_height = excluded.logo_height,
      logo_bytes = excluded.logo_bytes, logo_hash = excluded.logo_hash, logo_at = excluded.logo_at, updated_at = now()`;
  return before?.logoKey && before.logoKey !== logo.key ? before.logoKey : null;
}

/** Forgets the logo; answers its key (to delete), if there was one. */
export async function forgetLogo(sql: Db, workspaceId: string): Promise<string | null> {
  const [before] = await sql<{ logoKey: string | null }[]>`
    select logo_key from workspace_brands where workspace_id = ${workspaceId} for update`;
  if (!before?.logoKey) return null;
  await sql`
    update workspace_brands set logo_key = null, logo_type = null, logo_width = null, logo_height = null, logo_bytes = null,
      logo_hash = null, logo_at = null, updated_at = now()
    where workspace_id = ${workspaceId}`;
  return before.logoKey;
}

/** The brand name and whether there is a logo, of each workspace of `ids` that has a brand row. */
export async function brandBadges(sql: Db, ids: string[]): Promise<Map<string, { name: string | null; hasLogo: boolean }>> {
  if (!ids.length) return new Map();
  const rows = await sql<{ workspaceId: string; name: string | null; hasLogo: boolean }[]>`
    select workspace_id, name, logo_key is not null as has_logo from workspace_brands where workspace_id in ${sql(ids)}`;
  return new Map(rows.map((r) => [r.workspaceId, { name: r.name, hasLogo: r.hasLogo }]));
}
