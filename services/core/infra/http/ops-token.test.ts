import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The launcher (`npm start`) gives the processes an OPS_TOKEN: the environment's, else one it
// makes once and keeps in <data>/ops-token, readable by its owner alone.

type EnsureSecrets = (dataDir: string, log?: (line: string) => void) => Record<string, string>;
const secretsModule = pathToFileURL(path.resolve(import.meta.dirname, '../../../../infra/local/secrets.mjs')).href;
const { ensureSecrets } = (await import(secretsModule)) as { ensureSecrets: EnsureSecrets };

const dirs: string[] = [];
const saved = process.env.OPS_TOKEN;
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.OPS_TOKEN;
  else process.env.OPS_TOKEN = saved;
});
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ops-token-'));
  dirs.push(dir);
  return dir;
};
const quiet = () => {};

describe('the launcher and OPS_TOKEN', () => {
  it('makes a token when none is set, writes it to ops-token with mode 0600, and keeps it', () => {
    delete process.env.OPS_TOKEN;
    const dir = dataDir();
    const first = ensureSecrets(dir, quiet).OPS_TOKEN;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dir, 'ops-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureSecrets(dir, quiet).OPS_TOKEN).toBe(first);
  });

  it('tightens a kept file that came with looser rights', () => {
    delete process.env.OPS_TOKEN;
    const dir = dataDir();
    const file = path.join(dir, 'ops-token');
    writeFileSync(file, 'a'.repeat(64) + '\n');
    chmodSync(file, 0o644);
    expect(ensureSecrets(dir, quiet).OPS_TOKEN).toBe('a'.repeat(64));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('uses the environment when OPS_TOKEN is set, and writes nothing', () => {
    process.env.OPS_TOKEN = 'given-operator-token-0123456789';
    const dir = dataDir();
    expect(ensureSecrets(dir, quiet).OPS_TOKEN).toBe('given-operator-token-0123456789');
    expect(() => statSync(path.join(dir, 'ops-token'))).toThrow();
  });
});
