import { chown, rename, stat, writeFile } from 'node:fs/promises';
import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { adminCommand, AdminSocketError } from './admin-socket.js';

// The data plane's routes (issue 31; docs/runner.md, "Data plane"): HAProxy's map file keyed by a
// copy origin's `v<12 hex>` label, each value `ip:port|copyId`. The runner sets a route when a
// copy is ready and removes it at every other transition (stopped, paused, removed; and a revoke,
// takedown or deletion, which stop the copy); a removal also ends the connections open to that
// copy at once, WebSockets included. At the runner's start the whole map is replaced, atomically
// (prepare/commit map), and written to the file HAProxy reads should it restart; connections to a
// copy no route names then are ended too.

export interface Route {
  /** The viewer session whose copy this is: its copy origin's `v<12 hex>` key is the map's key. */
  sessionId: string;
  host: string;
  port: number;
  copyId: string;
}

export interface DataplaneRoutes {
  set(route: Route): Promise<void>;
  /** Removes the session's route and closes every open connection to its copy. */
  remove(sessionId: string): Promise<void>;
  /** The same, by the map's key (`v<12 hex>`). */
  removeKey(key: string): Promise<void>;
  replaceAll(routes: Route[]): Promise<void>;
  /** The routes HAProxy holds now (label → value). */
  list(): Promise<Map<string, string>>;
}

const UUID = /^[0-9a-f-]{36}$/i;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function routeKey(sessionId: string): string {
  if (!UUID.test(sessionId)) throw new AdminSocketError('a route needs a session id');
  return copyOriginKey(sessionId);
}

function routeValue(r: Route): string {
  // Values go into a command line: only what an address and an id can hold.
  if (!IPV4.test(r.host) || !Number.isInteger(r.port) || r.port < 1 || r.port > 65_535 || !UUID.test(r.copyId))
    throw new AdminSocketError('a route needs an IPv4 address, a port and a copy id');
  return `${r.host}:${r.port}|${r.copyId}`;
}

/** HAProxy answers commands it refused with text; an empty answer (or a version) is success. */
function expectOk(answer: string, what: string): string {
  const text = answer.trim();
  if (/unknown|not found|error|invalid|denied|missing|usage/i.test(text) && !/^\d+$/.test(text))
    throw new AdminSocketError(`the data plane refused ${what}: ${text.slice(0, 200)}`);
  return text;
}

export function dataplaneRoutes(opts: { adminSocket: string; routesMap: string }): DataplaneRoutes {
  const send = (command: string) => adminCommand(opts.adminSocket, command);
  const map = opts.routesMap;

  /**
   * Ends the sessions (viewer connections) whose copy side's address (`ip:port`) `ends` says: `show
   * sess all` lists them, `shutdown session` ends one.
   */
  async function closeSessions(ends: (address: string) => boolean) {
    const listing = await send('show sess all');
    const ids: string[] = [];
    // Each session starts with "0x<ptr>: [date] id=..." and names its copy side "server=copy (id=1) addr=ip:port".
    for (const block of listing.split(/\n(?=0x[0-9a-f]+: )/)) {
      const ptr = /^(0x[0-9a-f]+): /.exec(block)?.[1];
      const address = /server=copy \(id=\d+\) addr=(\S+)\n/.exec(block)?.[1];
      if (ptr && address && ends(address)) ids.push(ptr);
    }
    for (const id of ids) await send(`shutdown session ${id}`);
  }

  return {
    async set(route) {
      const key = routeKey(route.sessionId);
      const value = routeValue(route);
      // `set map` changes an existing key only ("entry not found" otherwise): then it is added.
      const changed = (await send(`set map ${map} ${key} ${value}`)).trim();
      if (/entry not found/i.test(changed)) expectOk(await send(`add map ${map} ${key} ${value}`), 'add map');
      else expectOk(changed, 'set map');
    },

    remove(sessionId) {
      return this.removeKey(routeKey(sessionId));
    },

    async removeKey(key) {
      if (!/^v[0-9a-f]{12}$/.test(key)) throw new AdminSocketError('not a route key');
      const before = await send(`get map ${map} ${key}`);
      await send(`del map ${map} ${key}`);
      const address = /value="(\d[\d.]+:\d+)\|/.exec(before)?.[1];
      if (address) await closeSessions((open) => open === address);
    },

    async replaceAll(routes) {
      const lines = routes.map((r) => `${routeKey(r.sessionId)} ${routeValue(r)}`);
      // The file first: a HAProxy that restarts reads it; then the live map, swapped whole.
      await writeFile(`${map}.new`, lines.map((l) => `${l}\n`).join(''), { mode: 0o600 });
      await keepOwner(map, `${map}.new`);
      await rename(`${map}.new`, map);
      const version = /New version created: (\d+)/.exec(expectOk(await send(`prepare map ${map}`), 'prepare map'))?.[1];
      if (!version) throw new AdminSocketError('the data plane gave no map version');
      for (const line of lines) expectOk(await send(`add map @${version} ${map} ${line}`), 'add map');
      expectOk(await send(`commit map @${version} ${map}`), 'commit map');
      // A route that left (a link revoked while the runner was down) takes its open tunnels with it:
      // every copy-side session whose address no route names now is ended (security-4.md L2).
      const kept = new Set(routes.map((r) => `${r.host}:${r.port}`));
      await closeSessions((open) => !kept.has(open));
    },

    async list() {
      const out = new Map<string, string>();
      for (const line of (await send(`show map ${map}`)).split('\n')) {
        const m = /^0x[0-9a-f]+ (\S+) (\S+)$/.exec(line.trim());
        if (m) out.set(m[1], m[2]);
      }
      return out;
    },
  };
}

/**
 * A root runner (Docker hosts: the engine socket is root's) gives the new map file to the owner of
 * the one it replaces: HAProxy runs as a user of its own and no capability (infra/k8s,
 * infra/compose), and must still read the file, mode 600, when it restarts. Anyone else writes as
 * the data plane's user already (the same uid on Kubernetes).
 */
async function keepOwner(previous: string, next: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await stat(previous).catch(() => null);
  if (owner) await chown(next, owner.uid, owner.gid);
}
