import type { Config } from '../../core/infra/config.js';
import type { ProjectRow } from '../../data/projects.sql.js';

/** The room's public address: the platform origin's /p/<slug>. Private links open /r/<key>. */
export const roomUrlOf = (config: Pick<Config, 'publicUrl'>, slug: string) => `${config.publicUrl}/p/${slug}`;

/** A project row as the contract's Project. */
export function projectView(config: Pick<Config, 'publicUrl'>, p: ProjectRow) {
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    visibility: p.visibility,
    liveBuildId: p.liveBuildId,
    roomUrl: roomUrlOf(config, p.slug),
    createdAt: p.createdAt.toISOString(),
  };
}
