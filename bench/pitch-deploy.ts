// `pitch deploy` run as a builder runs it, in its own process, timed from spawn to exit. Shared by
// the benches that deploy (cli-deploy, cli-redeploy, registry-redeploy).
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { testEnv } from '../test/support/services.js';
import { collectHarnessGarbage } from './harness-gc.js';
import { machineBusySeconds } from './machine-cpu.js';

/** A deploy's time, the machine's CPU-seconds over that time (every process's), and its progress (stderr). */
export interface TimedDeploy {
  ms: number;
  cpuSeconds: number;
  stderr: string;
}

/** Runs `pitch deploy <args…>` with `env` added; its time, CPU and progress, or its failure. */
export async function pitchDeploy(args: string[], env: Record<string, string>): Promise<TimedDeploy> {
  collectHarnessGarbage();
  const cpuBefore = machineBusySeconds();
  const started = performance.now();
  const child = spawn(process.execPath, ['services/cli/bin/pitch.mjs', 'deploy', ...args], { env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  const cpuSeconds = machineBusySeconds() - cpuBefore;
  if (code !== 0) throw new Error(`pitch deploy failed:\n${stderr}`);
  await rehearsalsRemoved(env.DOCKER_HOST ?? testEnv().DOCKER_HOST);
  return { ms, cpuSeconds, stderr };
}

/**
 * Waits (not timed) until the rehearsal copies a deploy handed to a process of its own at its end
 * are gone (services/cli/local-engine/after-exit.ts): their removal must not run into the next
 * deploy measured, which would then carry a container deploy's engine work.
 */
async function rehearsalsRemoved(dockerHost: string): Promise<void> {
  const docker = new Docker({ socketPath: dockerHost.replace(/^unix:\/\//, '') });
  const filters = { label: ['pitch.rehearsal=true'] };
  // At most 6 s: another tool's rehearsal running meanwhile is not this deploy's to wait for.
  for (let tries = 0; tries < 300; tries++) {
    if ((await docker.listContainers({ all: true, filters })).length === 0 && !(await engineRequestsRunning())) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a deploy's process for its engine calls after its end (engine-requests.mjs) still runs on this machine. */
async function engineRequestsRunning(): Promise<boolean> {
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('engine-requests.mjs')) return true;
  }
  return false;
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
  (dir: string, slug: string): Promise<TimedDeploy> =>
    pitchDeploy([dir, '--project', slug], {
      PITCH_API: apiUrl,
      PP_TOKEN: token,
      XDG_CONFIG_HOME: join(work, 'config'),
      DOCKER_HOST: testEnv().DOCKER_HOST!,
      // Each progress line with its time since the tool started: where the deploy's time went.
      PITCH_TIMINGS: '1',
    });
