import type Docker from 'dockerode';
import { Refusal } from '../refusal.js';
import { contextTar, type BuildContext } from './build-context.js';
import { engineMessage } from './engine-message.js';

interface BuildEvent {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/**
 * Builds the project folder's Dockerfile into an image with the given tag. The engine is sent the
 * context as read (build-context.ts: the folder less what .dockerignore excludes, at any depth)
 * and nothing else. Each line of the engine's output goes to `onLine`; a failed build is a
 * refusal quoting its error.
 */
export async function buildImage(docker: Docker, context: BuildContext, tag: string, onLine: (line: string) => void): Promise<void> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(contextTar(context), { t: tag, dockerfile: 'Dockerfile', rm: true, forcerm: true });
  } catch (err) {
    throw new Refusal(`the image build failed to start: ${engineMessage(err)}`);
  }
  const lines: string[] = [];
  const events = await new Promise<BuildEvent[]>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, result: BuildEvent[]) => (err ? reject(err) : resolve(result)),
      (event: BuildEvent) => {
        for (const line of (event.stream ?? '').split('\n')) {
          if (line.trim()) {
            lines.push(line.trimEnd());
            onLine(line.trimEnd());
          }
        }
      },
    );
  }).catch((err: Error) => {
    throw new Refusal(
      `the image build failed: ${err.message.trim()}`,
      lines.at(-1) ? `last output: ${lines.at(-1)}` : undefined,
      lines.slice(-20),
    );
  });
  const failed = events.find((event) => event.error || event.errorDetail);
  if (failed) {
    const message = (failed.errorDetail?.message ?? failed.error ?? 'unknown error').trim();
    throw new Refusal(`the image build failed: ${message}`, lines.at(-1) ? `last output: ${lines.at(-1)}` : undefined, lines.slice(-20));
  }
}
