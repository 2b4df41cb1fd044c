// `pitch deploy` run as a builder runs it, in its own process, timed from spawn to exit. Shared by
// the benches that deploy (cli-deploy, cli-redeploy, registry-redeploy).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { testEnv } from '../test/support/services.js';

/** Runs `pitch deploy <args…>` with `env` added; its time and progress (stderr), or its failure. */
export async function pitchDeploy(args: string[], env: Record<string, string>): Promise<{ ms: number; stderr: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['services/cli/bin/pitch.mjs', 'deploy', ...args], { env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`pitch deploy failed:\n${stderr}`);
  return { ms: performance.now() - started, stderr };
}

/** The container demo's server.js the redeploy benches deploy: one JSON answer on PORT. */
export const benchServerJs = `const http = require('node:http');
http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: true, path: req.url }));
}).listen(Number(process.env.PORT), process.env.HOST);
`;

/** `pitch deploy <dir> --project <slug>` as one builder against the test platform, its config kept under `work`. */
export const pitchDeployer =
  (apiUrl: string, token: string, work: string) =>
  (dir: string, slug: string): Promise<{ ms: number; stderr: string }> =>
    pitchDeploy([dir, '--project', slug], {
      PITCH_API: apiUrl,
      PP_TOKEN: token,
      XDG_CONFIG_HOME: join(work, 'config'),
      DOCKER_HOST: testEnv().DOCKER_HOST!,
      // Each progress line with its time since the tool started: where the deploy's time went.
      PITCH_TIMINGS: '1',
    });
