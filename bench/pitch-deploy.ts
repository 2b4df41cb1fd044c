// `pitch deploy` run as a builder runs it, in its own process, timed from spawn to exit. Shared by
// the benches that deploy (cli-deploy, cli-redeploy).
import { spawn } from 'node:child_process';

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
