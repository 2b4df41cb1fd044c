import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const platformModule = new URL('../../../test/support/platform.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('createQueues', () => {
  it('leaves no Redis connection open once closed, the QueueEvents ones included: a process that closed its platform exits on its own', async () => {
    // What a deploy does (services/core/infra/jobs.ts waits on QueueEvents), then close, in a process of
    // its own: before the fix, BullMQ left the QueueEvents connection it was handed open and the
    // process never ended (the benches' hang). A generous deadline tells a hang from an exit.
    const script = `
      const { startPlatform } = await import(${JSON.stringify(platformModule)});
      const platform = await startPlatform();
      await platform.deps.queues.events('archive.unpack').waitUntilReady();
      await platform.close();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const outcome = await new Promise<string>((resolve) => {
      const deadline = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 60 s');
      }, 60_000);
      child.on('exit', (code) => {
        clearTimeout(deadline);
        resolve(`exit ${code}`);
      });
    });
    expect(outcome).toBe('exit 0');
  }, 90_000);
});
