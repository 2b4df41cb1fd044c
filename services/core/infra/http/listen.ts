import type { FastifyInstance } from 'fastify';

/**
 * Connections a listening socket holds before the process accepts them (the kernel caps it at
 * net.core.somaxconn, 4096 on current kernels). Node's default, 511, is far below a crowd: when
 * thousands of viewers' calls open connections to one runner host at once, the kernel drops the
 * SYNs past the queue and each caller's TCP tries again after 1, 3, 7, 15 and 31 s. That, not the
 * decisions, was much of a 10,000-viewer burst's wait (docs/scale.md, "Fifth round").
 */
export const LISTEN_BACKLOG = 4096;

/** Listens as the platform's servers do (api, room, runner): on `port` and `host`, with room in the queue for a crowd. */
export function listenForCrowds(app: FastifyInstance, port: number, host: string): Promise<string> {
  return app.listen({ port, host, backlog: LISTEN_BACKLOG });
}
