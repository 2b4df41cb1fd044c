import type { Config } from '../core/infra/config.js';
import { copyOriginKey } from '../core/rules/copy-origin-key.js';

// Content origins (DESIGN.md, "Origins"): build content never shares the platform origin, where
// the builder's session cookie lives. CONTENT_ORIGIN is a template such as
// `http://{slug}.rooms.localhost:8080`. A static build is served at its project's own origin,
// `{slug}--p<8 hex of the project id>`, and a viewer's container copy at its own,
// `{slug}--v<12 hex of the session id>` (a slug never holds two hyphens in a row, so the kinds of
// label cannot be confused). The project's part matters: a slug is free again 30 days after its
// project is deleted, and a new project must not inherit the old one's origin, with whatever
// service worker, storage and cookies the old build left there.

type Origins = Pick<Config, 'contentOrigin'>;

/** The origin whose host carries `label` in place of `{slug}`. */
export const contentOriginOf = (config: Origins, label: string) => config.contentOrigin.replace('{slug}', label);

/** The label of a project's static content origin: its slug, and its id's first 8 hex digits. */
export const staticLabelOf = (slug: string, projectId: string) => `${slug}--p${projectId.replace(/-/g, '').slice(0, 8)}`;

/** The label of a viewer session's own copy origin: stable for the session, so a copy's restart keeps its cookies. */
export const copyLabelOf = (slug: string, sessionId: string) => `${slug}--${copyOriginKey(sessionId)}`;

/** The content origin a session's apps are served from: its own copy's, or the project's static one. */
export const sessionLabelOf = (standing: { kind: string | null; slug: string; projectId: string }, sessionId: string) =>
  standing.kind === 'container' ? copyLabelOf(standing.slug, sessionId) : staticLabelOf(standing.slug, standing.projectId);

export type ContentLabel = { label: string; slug: string; copy: boolean };

const patterns = new Map<string, RegExp>();

/**
 * The content label a Host header names; null when the host is not a content origin. Read from
 * the config on every call (tests learn their port only once listening), compiled once per template.
 */
export function contentLabelOf(config: Origins, host: string | undefined): ContentLabel | null {
  let pattern = patterns.get(config.contentOrigin);
  if (!pattern) {
    const placeholder = 'slug-placeholder';
    const [before, after] = new URL(contentOriginOf(config, placeholder)).hostname.split(placeholder);
    pattern = new RegExp(`^${escapeRegExp(before)}([a-z0-9-]{1,80})${escapeRegExp(after)}(?::\\d+)?$`);
    patterns.set(config.contentOrigin, pattern);
  }
  const m = host ? pattern.exec(host.toLowerCase()) : null;
  if (!m) return null;
  const scoped = /^([a-z0-9-]+?)--(?:v[0-9a-f]{12}|(p)[0-9a-f]{8})$/.exec(m[1]);
  if (!scoped) return null;
  return { label: m[1], slug: scoped[1], copy: !scoped[2] };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
