import { which } from '../../../infra/local/lib.mjs';
import { adminCommand, renderDataplaneConfig } from '../../../infra/local/dataplane.mjs';
import { eventually } from '../runner/test-runner.js';
import type { HostHook } from './runner-host.js';

// The data plane of one harness host (docs/runner.md, "Data plane", "Several runner hosts"): its
// config rendered by infra/local/dataplane.mjs into the host's folder, HAProxy started inside the
// host's namespace (spawnInside: killed at teardown; under `setpriv --pdeathsig` as `npm start`
// runs it, so it never outlives the test process), listening on the host's veth address. The
// host's runner is given its admin socket and routes map, and registers `http://<veth>:<port>` as
// its copy origin, which is how the room (in the default namespace) reaches the host's copies.

export const DATAPLANE_PORT = 8184;

/** The hook that gives each host its data plane; `tokenKey` is the room's COPY_TOKEN_KEY. */
export function dataplaneHook(o: { tokenKey: string; frameAncestors: string }): HostHook {
  return async (m) => {
    const paths = renderDataplaneConfig({
      dir: `${m.dir}/dataplane`,
      port: DATAPLANE_PORT,
      bind: m.net.inside,
      // No room in the harness: what the data plane does not take answers 503 (nothing listens on port 1).
      room: `${m.net.outside}:1`,
      frameAncestors: o.frameAncestors,
      tokenKey: o.tokenKey,
    });
    const haproxy = which('haproxy');
    if (!haproxy) throw new Error('haproxy is not installed (apt-get install haproxy)');
    const child = m.spawnInside('setpriv', ['--pdeathsig', 'SIGKILL', haproxy, '-db', '-f', paths.config]);
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy of host ${m.name} exited ${child.exitCode}`);
        return /Name: HAProxy/.test(await adminCommand(paths.adminSocket, 'show info').catch(() => ''));
      },
      10_000,
      100,
    );
    return {
      copyOrigin: `http://${m.net.inside}:${DATAPLANE_PORT}`,
      env: { DATAPLANE_ADMIN_SOCKET: paths.adminSocket, DATAPLANE_ROUTES_MAP: paths.routesMap, COPY_TOKEN_KEY: o.tokenKey },
    };
  };
}
