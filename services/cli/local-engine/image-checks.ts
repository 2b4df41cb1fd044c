import { checkDockerfile, type FolderProblemCode } from '@demo-rooms/contract/manifest';
import { Refusal } from '../refusal.js';

export interface ImageConfig {
  WorkingDir?: string;
  Cmd?: string[] | null;
  Entrypoint?: string[] | string | null;
  Env?: string[];
}

/**
 * Rule 11 of spec 2.1 after the build, in the deploy's order: wrong WORKDIR, then missing CMD.
 * The Dockerfile says what the builder wrote; the built image says what it came to (a WORKDIR
 * from a build argument, a CMD inherited from the base), so both are asked.
 */
export function checkBuiltImage(dockerfile: string, image: ImageConfig): void {
  const problems = checkDockerfile(dockerfile).problems;
  const first = (code: FolderProblemCode) => problems.find((p) => p.code === code);

  const workdir = first('workdir-not-app');
  if (workdir) throw new Refusal(`wrong WORKDIR: ${workdir.message}`, 'the platform starts the build in /app');
  if (image.WorkingDir !== '/app') {
    throw new Refusal(
      `wrong WORKDIR: the image works in ${image.WorkingDir || '/'}; it must set WORKDIR /app`,
      'the platform starts the build in /app',
    );
  }
  const cmd = first('cmd-missing');
  if (cmd) throw new Refusal(`missing CMD: ${cmd.message}`, 'give the last stage a CMD, for example CMD ["node", "server.js"]');
  if (!image.Cmd?.length)
    throw new Refusal('missing CMD: the image has no CMD', 'give the last stage a CMD, for example CMD ["node", "server.js"]');
}

/**
 * run.start when pitch.json leaves it out: the image's CMD. The runner puts run.start in the CMD's
 * place and keeps any ENTRYPOINT (docs/decisions/runner.md), so this starts the copy exactly as the
 * image would start itself.
 */
export function startCommandOf(image: ImageConfig): string[] {
  return image.Cmd ?? [];
}
