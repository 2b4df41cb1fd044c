import { createRequire } from 'node:module';

// node:http and node:https, loaded with require. Since Node 22, node:http has three getters
// (WebSocket, CloseEvent, MessageEvent) that load all of Node's undici, about 50 ms here; an ESM
// import of a builtin reads every export to make its namespace, so `import … from 'node:http'`
// pays that and require does not (nodejs/node#57649, #59686). The tool wants neither WebSocket
// nor fetch on its commands' way: an unchanged redeploy's whole own work is about 0.15 s.
// Each is loaded at its first use, as `pitch validate` needs neither (node:https alone, with TLS,
// is about 20 ms). Types still come from `import type`, which loads nothing.
const require = createRequire(import.meta.url);

/** node:http. */
export const http = (): typeof import('node:http') => require('node:http');
/** node:https. */
export const https = (): typeof import('node:https') => require('node:https');

/** The request function of the URL's scheme. */
export function requestFor(url: URL): typeof import('node:http').request | typeof import('node:https').request {
  return url.protocol === 'https:' ? https().request : http().request;
}
