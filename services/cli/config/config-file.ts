import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { Refusal } from '../refusal.js';

// The tool's own file: one token per platform address, and which project each folder deploys to.
// It holds bearer tokens, so it is written 0600 in a 0700 folder and never made readable by others.

const HostEntry = z.object({ token: z.string().min(1), email: z.string().optional() });

export const PitchConfig = z.object({
  /** By platform address (resolveApiUrl's form): a token from `pitch login`. */
  hosts: z.record(z.string(), HostEntry).default({}),
  /** By `<platform address> <absolute project folder>`: the slug that folder deploys to. */
  projects: z.record(z.string(), z.string()).default({}),
  /**
   * By the same key: the build this folder's last container deploy made and the digest of the
   * inputs it was built from (build-inputs.ts), so an unchanged redeploy stops before any build;
   * and, when its Dockerfile ends in steps that only copy files or set metadata, what its image
   * below those steps was made from (build-recipe.ts), so a redeploy may lay them in-process.
   */
  builtFrom: z
    .record(
      z.string(),
      z.object({
        projectId: z.string(),
        buildId: z.string(),
        inputs: z.string(),
        recipe: z
          .object({
            head: z.string(),
            tail: z.string(),
            tailText: z.string().optional(),
            reads: z.array(z.object({ line: z.number(), files: z.string() })),
            copies: z.array(z.object({ line: z.number(), files: z.string() })).optional(),
          })
          .optional(),
        /**
         * The pushed image's layers and their sizes, as this tool's manifest named them: a redeploy
         * laid in-process takes the kept layers' sizes from here, not from the registry. A size that
         * is wrong here is refused by the platform's check of the image. A record that does not fit
         * is dropped, not the config file: the sizes are then asked of the registry again.
         */
        layers: z
          .record(z.string().regex(/^sha256:[0-9a-f]{64}$/), z.number().int().nonnegative())
          .optional()
          .catch(undefined),
        /**
         * The build's image id (its config's digest): the next deploy lays its files on that image
         * as the tool starts, before the platform has been asked which build is live (head-start.ts).
         */
        image: z
          .string()
          .regex(/^sha256:[0-9a-f]{64}$/)
          .optional()
          .catch(undefined),
      }),
    )
    .default({}),
});
export type PitchConfig = z.infer<typeof PitchConfig>;

/** `$XDG_CONFIG_HOME/pitch/config.json`, else `~/.config/pitch/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'pitch', 'config.json');
}

export async function readConfig(path = configPath()): Promise<PitchConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return PitchConfig.parse({});
    throw err;
  }
  await keepPrivate(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Refusal(`${path} is not JSON`, 'remove it and sign in again with `pitch login`');
  }
  const parsed = PitchConfig.safeParse(json);
  if (!parsed.success) throw new Refusal(`${path} is not a pitch config file`, 'remove it and sign in again with `pitch login`');
  return parsed.data;
}

/** A file someone loosened (chmod, a copy) is tightened again before its token is used. */
async function keepPrivate(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    await chmod(path, 0o600);
    process.stderr.write(`pitch: ${path} was readable by others; it is now readable by you only\n`);
  }
}

/** Written whole to a new 0600 file beside it, then renamed over it: never half a file, never a moment readable. */
export async function writeConfig(config: PitchConfig, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(config, null, 2)}\n`);
    // The mode given to open is masked by the umask; chmod states it exactly.
    await file.chmod(0o600);
  } finally {
    await file.close();
  }
  await rename(temp, path);
}

/** Reads, changes and writes the file in one step. */
export async function updateConfig(change: (config: PitchConfig) => void, path = configPath()): Promise<void> {
  const config = await readConfig(path);
  change(config);
  await writeConfig(config, path);
}
