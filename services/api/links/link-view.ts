import type { LinkRec } from '@demo-rooms/contract';
import type { Config } from '../../core/infra/config.js';
import { stageOf, type LinkRow } from '../../data/links.sql.js';

/** A link's full address: shown only by createLink, revealLink and reissueLink. */
export const linkUrlOf = (config: Pick<Config, 'publicUrl'>, key: string) => `${config.publicUrl}/r/${key}`;

/** A link row as the contract's LinkRec: never its key or address. */
export function linkView(l: LinkRow): LinkRec {
  return {
    id: l.id,
    viewerName: l.viewerName,
    viewerEmail: l.viewerEmail,
    viewerCompany: l.viewerCompany,
    expiresAt: l.expiresAt?.toISOString() ?? null,
    revokedAt: l.revokedAt?.toISOString() ?? null,
    stage: stageOf(l),
    recoverable: l.keySealed !== null,
    lastOpenedAt: l.lastOpenedAt?.toISOString() ?? null,
  };
}
