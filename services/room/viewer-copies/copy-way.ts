import type { IncomingMessage } from 'node:http';
import { fastifyCookie } from '@fastify/cookie';
import type { Config } from '../../core/infra/config.js';
import { copyOriginKey } from '../../core/rules/copy-origin-key.js';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import type { CopyView } from '@demo-rooms/contract/runner';
import { createCopyHops } from './copy-hop.js';
import type { CopyTarget } from './copy-proxy.js';
import { copyCookie, copyTokens, personalClaims } from './copy-token.js';

// The copy gateway's way to a copy (copy-gateway.ts): the copy token the room mints for the
// data plane, as a cookie on its answers and on its own hops, and the hop itself (copy-hop.ts).

export function createCopyWay(deps: { config: Config; sql: Sql; log: Logger }) {
  // With a data plane (COPY_TOKEN_KEY set), every answer the room gives on a copy origin carries a
  // fresh copy token: the viewer's next requests go straight to the copy (docs/runner.md, "Data plane"),
  // told who the viewer is as the room's proxy tells it (the token's vn/vc become the same headers).
  const copyTokenMint = deps.config.COPY_TOKEN_KEY ? copyTokens(deps.config.COPY_TOKEN_KEY) : null;
  /** The room's copy token for the data plane, with the viewer's personal claims when the build asked (copy-token.ts). */
  const copyToken = (sessionId: string, copyId: string, viewerHeaders: Record<string, string>) =>
    copyTokenMint?.sign({ lbl: copyOriginKey(sessionId), sid: sessionId, cid: copyId, ...personalClaims(viewerHeaders) });
  const copyTokenCookie = (sessionId: string, view: CopyView, viewerHeaders: Record<string, string>): string[] =>
    copyTokenMint && view.copyId
      ? [fastifyCookie.serialize(copyCookie, copyToken(sessionId, view.copyId, viewerHeaders)!, copyTokenMint.cookieOptions)]
      : [];
  const hops = createCopyHops(deps.sql);
  /** Logged once: a copy the room cannot reach (no copy-token key here, or a host without a data plane). */
  let unreachableLogged = false;
  /**
   * The room's way to a copy, the only one (docs/runner.md, "One way to a copy"): its host's data
   * plane with a fresh copy token (copy-hop.ts). The room never learns a copy's own address. Null
   * when there is no way: the room has no COPY_TOKEN_KEY, or the host registered no copy origin.
   */
  async function hopTo(
    req: IncomingMessage,
    sessionId: string,
    copyId: string,
    viewerHeaders: Record<string, string>,
  ): Promise<Pick<CopyTarget, 'host' | 'port' | 'upstreamHeaders'> | null> {
    const dataplane = copyTokenMint ? await hops.dataplaneOf(copyId) : null;
    if (!dataplane) {
      if (!unreachableLogged)
        deps.log.error({ copyId, copyTokenKey: Boolean(copyTokenMint) }, "a copy's host has no data plane the room can reach");
      unreachableLogged = true;
      return null;
    }
    return { ...dataplane, upstreamHeaders: hops.upstreamHeaders(req.headers, copyToken(sessionId, copyId, viewerHeaders)!) };
  }
  return { hopTo, copyTokenCookie, hops };
}
