import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { viteBuild } from '../../infra/local/lib.mjs';
import { localWebhooks } from '../../infra/local/local-webhooks.mjs';

// `npm start` builds the web app and the room scripts with Vite before it decides NODE_ENV, and
// Vite's build sets process.env.NODE_ENV to 'production': a fresh clone's first start ran the
// whole platform as production, which refused a builder's local webhook receiver (issue 45).

describe('a Vite build inside the launcher', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('leaves NODE_ENV as it found it, so npm start still allows local webhook receivers', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vite-env-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'entry.js'), 'console.log(1);\n');
    const before = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    try {
      await viteBuild({
        configFile: false,
        root: dir,
        logLevel: 'silent',
        build: { outDir: path.join(dir, 'out'), rollupOptions: { input: path.join(dir, 'entry.js') } },
      });
      expect(existsSync(path.join(dir, 'out'))).toBe(true);
      expect(process.env.NODE_ENV).toBeUndefined();
      // What start.mjs then decides: development, and local receivers on.
      expect(localWebhooks({ NODE_ENV: process.env.NODE_ENV ?? 'development' }).value).toBe('true');
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});
