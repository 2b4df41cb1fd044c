import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

// Content origins (static builds and container copies) serve no service worker script. A
// service worker outlives the page that registered it: it answers the origin's requests from
// its own cache, so a build's worker could go on showing the demo after the viewer's standing
// is gone (link revoked, room paused, project taken down), until its next update check. The
// browser marks every fetch of a worker's script (registration and update) with
// `Service-Worker: script`; refusing those means no worker is ever installed. Demos lose
// offline caching, which a demo viewed through the room never needs (docs/decisions/room-pages-and-static-files.md).

export const SERVICE_WORKER_REFUSED = 'Service workers are not served on demo origins.\n';

/** Whether the request is the browser fetching a service worker's script. */
export function isServiceWorkerScript(headers: IncomingHttpHeaders): boolean {
  return (
    String(headers['service-worker'] ?? '')
      .trim()
      .toLowerCase() === 'script'
  );
}

/** The refusal: 403 with a short text, never cached. */
export function refuseServiceWorker(res: ServerResponse): void {
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(SERVICE_WORKER_REFUSED);
}
