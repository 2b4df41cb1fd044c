import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHome, pitch } from './support/pitch.js';

// Issue 29, item 1: what a container demo needs to write is checked before any build. A copy
// writes only under /app and /tmp, as uid 1000: `pitch validate` notes what points elsewhere.

describe('pitch validate and a container demo that writes', () => {
  it("notes a VOLUME, a data folder outside /app and /tmp, and a folder made as root, and stays quiet on the docs' Dockerfile", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pitch-writable-'));
    await writeFile(
      join(dir, 'pitch.json'),
      JSON.stringify({
        kind: 'container',
        name: 'Flows demo',
        apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
        run: { start: ['node', 'server.js'], env: { UPLOAD_DIR: '/srv/uploads', MOCK_MODE: 'demo' } },
      }),
    );
    await writeFile(
      join(dir, 'Dockerfile'),
      [
        'FROM localhost/demo-node:24',
        'WORKDIR /app',
        'COPY . .',
        'ENV NODE_RED_HOME=/data',
        'RUN mkdir -p /app/flows',
        'VOLUME /data',
        'CMD ["node", "server.js"]',
      ].join('\n'),
    );
    const env = { api: 'http://127.0.0.1:9', configHome: await configHome() };
    const result = await pitch(['validate', '--json'], env, dir);
    expect(result.code, result.stderr).toBe(0);
    const { ok, notes } = JSON.parse(result.stdout) as { ok: boolean; notes: { code: string; message: string }[] };
    expect(ok).toBe(true);
    expect(notes.filter((n) => n.code !== 'no-story')).toEqual([
      {
        code: 'writes-outside-app',
        message: expect.stringMatching(/^The Dockerfile sets NODE_RED_HOME=\/data, but a copy can write only under \/app and \/tmp/),
      },
      {
        code: 'writes-outside-app',
        message: expect.stringMatching(/^run\.env sets UPLOAD_DIR=\/srv\/uploads, but a copy can write only under \/app and \/tmp/),
      },
      {
        code: 'folder-not-writable',
        message:
          'RUN on Dockerfile line 5 makes /app/flows as root, so the copy (uid 1000) cannot write in it: add `&& chown 1000:1000 /app/flows`.',
      },
      {
        code: 'volume-not-writable',
        message: expect.stringMatching(/^VOLUME \/data \(Dockerfile line 6\) is not a place a copy can write/),
      },
    ]);
    // The words, without --json: each a note line.
    const plain = await pitch(['validate'], env, dir);
    expect(plain.stderr).toMatch(/^note: VOLUME \/data \(Dockerfile line 6\)/m);

    // The Dockerfile docs/cli.md shows: nothing to note.
    await writeFile(
      join(dir, 'pitch.json'),
      JSON.stringify({ kind: 'container', name: 'Notes demo', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] }),
    );
    await writeFile(
      join(dir, 'Dockerfile'),
      'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY . .\nRUN mkdir -p /app/data && chown 1000:1000 /app/data\nCMD ["node", "server.js"]\n',
    );
    const docs = JSON.parse((await pitch(['validate', '--json'], env, dir)).stdout) as { notes: { code: string }[] };
    expect(docs.notes.map((n) => n.code)).toEqual(['no-story']);
  });
});
