import { createHash } from 'node:crypto';
import type { Theme } from '@demo-rooms/contract';
import type { Sql } from '../../core/infra/db.js';
import { Refusal, roleCannot } from '../../core/rules/errors.js';
import { logoRules, reencodeOrRefuse } from '../../core/rules/images.js';
import { composeLook, problemsOf, type ContrastProblem, type LookAsked } from '../../core/rules/room-theme.js';
import type { Storage } from '../../core/infra/storage.js';
import { brandOf, forgetLogo, logoKey, saveBrandWords, saveLogo, saveTheme } from '../../data/brand.sql.js';
import { workspaceById } from '../../data/workspaces.sql.js';

// The brand and theme of the active workspace (spec 4.4). Only a team's owners change them; in
// one's own workspace one is the owner. Nothing unreadable is stored: an accent or theme the
// room would draw below the WCAG bar is refused with each failing pair and a passing shade.

/** 403 naming the operation (`action`) unless the caller owns the workspace. */
export async function assertMayBrand(sql: Sql, auth: { workspaceId: string; role: 'owner' | 'member' }, operation: string) {
  const workspace = await workspaceById(sql, auth.workspaceId);
  if (workspace.kind === 'team' && auth.role !== 'owner') throw roleCannot(operation);
}

/** 400 `unreadable: …` reason `contrast` (spec 7), naming the first failing pair in words. */
export function unreadable(problems: ContrastProblem[]): Refusal {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  const words = `unreadable: ${first.pair} is ${first.ratio}:1 in the ${first.scheme} palette, needs ${first.needed}:1${more}`;
  return new Refusal(400, words, 'contrast', { problems });
}

export const checkLook = (asked: LookAsked) => problemsOf(composeLook(asked), asked);

export async function setBrand(sql: Sql, workspaceId: string, body: { name: string | null; accent: string | null }) {
  const accent = body.accent?.toLowerCase() ?? null;
  const { theme } = await brandOf(sql, workspaceId);
  // The accent is checked where the room draws it: not at all when the theme has its own.
  if (accent && !theme?.accent) {
    const problems = checkLook({ theme, accent }).filter((p) => p.foreground === 'accent' || p.background === 'accent');
    if (problems.length) throw unreadable(problems);
  }
  await saveBrandWords(sql, workspaceId, { name: body.name, accent });
}

/** Kept whatever the plan (spec 4.4): a plan without own branding only stops the room showing it. */
export async function setTheme(sql: Sql, workspaceId: string, theme: Theme) {
  const { accent } = await brandOf(sql, workspaceId);
  const tidy = tidyTheme(theme);
  const problems = checkLook({ theme: tidy, accent });
  if (problems.length) throw unreadable(problems);
  await saveTheme(sql, workspaceId, tidy);
}

/** Colours in lower case; a theme of no tokens is the room's own (null). */
function tidyTheme(theme: Theme): Theme | null {
  const entries = Object.entries(theme)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, k === 'radius' || k === 'font' ? v : v.toLowerCase()]);
  return entries.length ? (Object.fromEntries(entries) as Theme) : null;
}

export const resetTheme = (sql: Sql, workspaceId: string) => saveTheme(sql, workspaceId, null);

/**
 * The logo PUT: the declared length first (411 without one, 422 `file` over 256 KB, before a
 * byte is read), then the bytes judged and re-encoded (images.ts), stored under their hash, and
 * the logo they replace deleted once the row points at the new one.
 */
/** The logo's bytes (read by `imageBody`, within `logoRules.maxBytes`), checked and stored. */
export async function receiveLogo(sql: Sql, storage: Storage, workspaceId: string, bytes: Buffer) {
  const image = await reencodeOrRefuse(bytes, logoRules, 'the logo', workspaceId);
  const hash = createHash('sha256').update(image.bytes).digest('base64url').slice(0, 32);
  const key = logoKey(workspaceId, hash);
  await storage.put(key, image.bytes, { contentType: image.type, size: image.bytes.length });
  const replaced = await sql.begin((tx) =>
    saveLogo(tx, workspaceId, { key, type: image.type, width: image.width, height: image.height, bytes: image.bytes.length, hash }),
  );
  // The row forgets the old one first: a failed delete leaves an unreachable object, never a broken logo.
  if (replaced) await storage.deletePrefix(replaced).catch(() => {});
}

export async function removeLogo(sql: Sql, storage: Storage, workspaceId: string) {
  const key = await sql.begin((tx) => forgetLogo(tx, workspaceId));
  if (key) await storage.deletePrefix(key).catch(() => {});
}
