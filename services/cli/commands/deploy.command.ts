import { Command, InvalidArgumentError } from 'commander';
import { maxBuildNoteChars, SLUG_FORMAT, SLUG_FORMAT_RULE } from '@demo-rooms/contract';
import { DEFAULT_HEALTH_SECONDS } from '../deploy-steps/head-start.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';

interface Options {
  project?: string;
  note?: string;
  live: boolean;
  force?: boolean;
  healthTimeout?: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

/**
 * A project's address as given, in the form the platform takes: refused here, before the build and
 * rehearsal, which would otherwise end at the platform's 422 (or at the engine, the slug naming the image).
 */
function projectSlug(value: string): string {
  if (!SLUG_FORMAT.test(value)) throw new InvalidArgumentError(`a project's address is ${SLUG_FORMAT_RULE}`);
  return value;
}

/** A build's note as the platform takes it: a longer one is refused here, not after the build and upload. */
function buildNote(value: string): string {
  if (value.length > maxBuildNoteChars) throw new InvalidArgumentError(`at most ${maxBuildNoteChars} characters, not ${value.length}`);
  return value;
}

export function deployCommand(): Command {
  return new Command('deploy')
    .description('check, scan, build, rehearse, pack and upload the project; prints the room address')
    .argument('[dir]', 'the project folder (where pitch.json is)', '.')
    .option(
      '--project <slug>',
      "the project to deploy to (default: the one this folder deployed to, else made from the manifest's name)",
      projectSlug,
    )
    .option('--note <text>', `a note kept with the build (at most ${maxBuildNoteChars} characters)`, buildNote)
    .option('--no-live', 'upload the build without making it live')
    .option('--force', 'deploy even when nothing changed (the live build already has these files or this image, and this pitch.json)')
    .option(
      '--health-timeout <seconds>',
      `container: how long the local copy may take to answer its health path (default: PITCH_HEALTH_TIMEOUT, else ${DEFAULT_HEALTH_SECONDS})`,
      seconds,
    )
    .action(async (dir: string, options: Options, command: Command) => {
      const ctx = contextOf(command);
      const fromEnv = ctx.env.PITCH_HEALTH_TIMEOUT ? Number(ctx.env.PITCH_HEALTH_TIMEOUT) : undefined;
      if (fromEnv !== undefined && !(fromEnv > 0))
        throw new Refusal(`PITCH_HEALTH_TIMEOUT must be a number of seconds above 0, not ${JSON.stringify(ctx.env.PITCH_HEALTH_TIMEOUT)}`);
      // Loaded when used: the scanner, packer and engine client are most of the tool's code.
      const { deploy } = await import('../deploy-steps/deploy-flow.js');
      await deploy(ctx, dir, {
        project: options.project,
        note: options.note,
        live: options.live,
        force: options.force ?? false,
        healthTimeoutMs: (options.healthTimeout ?? fromEnv ?? DEFAULT_HEALTH_SECONDS) * 1000,
      });
    });
}
