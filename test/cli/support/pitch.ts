import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startPlatform, type Platform } from '../../support/platform.js';
import { testEnv } from '../../support/services.js';

// Drives the real `pitch` bin as a subprocess, as a builder's shell would: its own environment
// (platform address, token, config folder, engine socket), nothing inherited by accident.

export const PITCH_BIN = fileURLToPath(new URL('../../../services/cli/bin/pitch.mjs', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../fixtures/cli/', import.meta.url));

export interface PitchEnv {
  api: string;
  token?: string;
  /** XDG_CONFIG_HOME: where the tool keeps its config file. */
  configHome: string;
  extra?: Record<string, string>;
}

export interface PitchResult {
  code: number;
  stdout: string;
  stderr: string;
}

function envOf(env: PitchEnv): NodeJS.ProcessEnv {
  const { PP_TOKEN: _token, PITCH_API: _api, PITCH_HEALTH_TIMEOUT: _health, ...rest } = process.env;
  return {
    ...rest,
    PITCH_API: env.api,
    ...(env.token ? { PP_TOKEN: env.token } : {}),
    XDG_CONFIG_HOME: env.configHome,
    DOCKER_HOST: testEnv().DOCKER_HOST,
    ...env.extra,
  };
}

export function spawnPitch(args: string[], env: PitchEnv, cwd?: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [PITCH_BIN, ...args], { cwd, env: envOf(env) });
}

export async function pitch(args: string[], env: PitchEnv, cwd?: string): Promise<PitchResult> {
  const child = spawnPitch(args, env, cwd);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr };
}

/** A fresh folder for the tool's config file. */
export const configHome = () => mkdtemp(join(tmpdir(), 'pitch-config-'));

/**
 * A copy of a fixture folder in a temp folder (a deploy writes its output there, and the
 * fixtures stay as committed). `name` replaces the manifest's name, so each copy's project
 * address is its own across test runs.
 */
export async function fixture(folder: string, name?: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), `pitch-${folder}-`)), folder);
  await cp(join(FIXTURES, folder), dir, { recursive: true });
  // Fixtures that differ from another only in their Dockerfile or manifest name the files they
  // share in `shared-files` (paths under test/fixtures/cli), rather than holding copies.
  const shared = await readFile(join(dir, 'shared-files'), 'utf8').catch(() => '');
  for (const path of shared
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean))
    await cp(join(FIXTURES, path), join(dir, basename(path)));
  await rm(join(dir, 'shared-files'), { force: true });
  if (name) {
    const file = join(dir, 'pitch.json');
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...manifest, name }, null, 2));
  }
  return dir;
}

/** The refusal: the stderr lines from the first `pitch:` line on (progress lines come before it). */
export function refusalLines(stderr: string): string[] {
  const lines = stderr.trimEnd().split('\n');
  const at = lines.findIndex((line) => line.startsWith('pitch: '));
  return at < 0 ? [] : lines.slice(at);
}

/**
 * A real platform (api and workers on a loopback port) for one test file, a Solo builder on it,
 * and the environment `pitch` runs with as that builder. Closed after the file's tests.
 */
export function platformForPitch(): { platform: Platform; builder: Awaited<ReturnType<Platform['person']>>; env: PitchEnv } {
  const ctx = {} as ReturnType<typeof platformForPitch>;
  beforeAll(async () => {
    ctx.platform = await startPlatform({ workers: true });
    ctx.builder = await ctx.platform.person({ plan: 'solo' });
    ctx.env = { api: ctx.platform.baseUrl, token: ctx.builder.token, configHome: await configHome() };
  });
  afterAll(async () => {
    await ctx.platform?.close();
  });
  return ctx;
}
