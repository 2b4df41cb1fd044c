import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Refusal } from '../refusal.js';

/** Whether the project's package.json has a `build` script (the static build step runs it). */
export async function hasBuildScript(dir: string): Promise<boolean> {
  try {
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
    return typeof pkg.scripts?.build === 'string';
  } catch {
    return false;
  }
}

/**
 * Runs `npm run build` in the project. Its output is kept, and streamed to stderr with --verbose;
 * a failed build is a refusal with its exit code and last line of output.
 */
export async function runBuildScript(dir: string, echo: boolean): Promise<void> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, ['run', 'build'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    if (echo) process.stderr.write(chunk);
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .map((line) => line.trimEnd())
        .filter(Boolean),
    );
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).catch((err: Error) => {
    throw new Refusal(`the build script could not start: ${err.message}`, 'is npm installed and on PATH?');
  });
  if (code !== 0) {
    // npm's own epilogue (`npm error ...`) says less than the script's last words.
    const own = lines.filter((line) => !/^npm (ERR!|error)/.test(line));
    throw new Refusal(
      `the build failed: \`npm run build\` exited with ${code ?? 'a signal'}`,
      own.at(-1) ? `last output: ${own.at(-1)}` : undefined,
      lines.slice(-20),
    );
  }
}
