import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tgz } from '../../test/support/archives.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';

let platform: Platform;
const children: ChildProcess[] = [];
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await platform.close();
});

async function startWorker(): Promise<ChildProcess> {
  const env = { ...process.env, ...platform.deps.config, QUEUE_PREFIX: platform.deps.config.QUEUE_PREFIX } as unknown as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/worker-process.ts'], {
    env: { ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(String(line)).toContain('worker ready');
  return child;
}

/** Page files stored so far. s3rver can fail a listing that races a write, so it is retried. */
async function pagesStored(buildId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await platform.deps.storage.list(`builds/${buildId}/files/pages/`)).length;
    } catch (err) {
      if (attempt > 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('a worker killed in the middle of an unpack', () => {
  it('leaves no visible build, and the retried job makes exactly the build', async () => {
    const { client, token } = await platform.person();
    const project = await client.call('createProject', { body: { slug: `k-${crypto.randomUUID().slice(0, 12)}`, name: 'Crash' } });
    // Many files, so the unpack takes long enough to be caught halfway.
    const files: Record<string, string> = { 'index.html': '<h1>home</h1>' };
    for (let i = 0; i < 1500; i++) files[`pages/p${i}.html`] = `<p>${i}</p>`.repeat(50);
    const bytes = await tgz(files);
    const { uploadId, putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);

    const first = await startWorker();
    const building = client.call('createBuild', {
      params: { projectId: project.id },
      body: {
        uploadId,
        manifest: { kind: 'static', name: 'Crash', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] },
      },
    });
    building.catch(() => {});

    // Wait until the job reports files landing, then kill the worker without warning.
    let landed = 0;
    let buildId = '';
    for (let i = 0; i < 800 && landed < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const [job] = await platform.deps.queues.get('archive.unpack').getJobs(['active']);
      landed = (job?.progress as { files?: number } | undefined)?.files ?? 0;
      buildId = job?.data.buildId ?? buildId;
    }
    expect(landed).toBeGreaterThan(0);
    expect(buildId).not.toBe('');
    first.kill('SIGKILL');
    await once(first, 'exit');

    const midway = await pagesStored(buildId);
    expect(midway).toBeLessThan(Object.keys(files).length);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);

    await startWorker();
    const build = await building;
    expect(build.kind).toBe('static');
    const stored = await platform.deps.storage.list(`builds/${build.id}/files/`);
    expect(stored).toHaveLength(Object.keys(files).length);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toHaveLength(1);
    const [upload] = await platform.deps.sql`select state from uploads where id = ${uploadId}`;
    expect(upload.state).toBe('used');
  });
});
