import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { entropyBits, looksRandom } from './entropy-rule.js';
import { secretsRefusal } from './findings.js';
import { scanBundle } from './scan-bundle.js';
import { scanEnvironment } from './scan-environment.js';
import { SecretScanner } from './secret-scan.js';

// Values that look like keys are made here at random, so no file of the repository holds one. The
// rule wants letters and digits mixed; a digit and a letter are added so every draw has both.
const randomKey = () => `${randomBytes(24).toString('base64url')}7q`;

async function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the high-entropy assignment rule', () => {
  it('tells random keys from words, code and placeholders', () => {
    expect(looksRandom(randomKey())).toBe(true);
    expect(looksRandom(randomBytes(20).toString('hex'))).toBe(true);
    expect(looksRandom('correcthorsebatterystaple')).toBe(false);
    expect(looksRandom('process.env.STRIPE_SECRET_KEY')).toBe(false);
    expect(looksRandom('window.config.apiToken2')).toBe(false);
    expect(looksRandom('your-api-key-goes-here-1234')).toBe(false);
    expect(looksRandom('EXAMPLEKEY1234567890abcdef')).toBe(false);
    expect(entropyBits('aaaa')).toBe(0);
    expect(entropyBits('abcd')).toBe(2);
  });

  it('reports a random value assigned to a secret-sounding name, and not the value itself', async () => {
    const scanner = new SecretScanner();
    const key = randomKey();
    const found = await scanner.scanText('src/settings.ts', `export const region = "eu-west-1";\nconst STRIPE_SECRET_KEY = "${key}";\n`);
    expect(found).toEqual([{ where: 'src/settings.ts', line: 2, rule: 'HighEntropyAssignment, pitch/high-entropy-assignment' }]);
    expect(JSON.stringify(found)).not.toContain(key);
    expect(await scanner.scanText('a.js', `const buildHash = "${key}";\nconst token = process.env.TOKEN_FROM_ENVIRONMENT;`)).toEqual([]);
  });
});

describe('the start environment scan', () => {
  it('names the variable holding a secret, from run.env or the image', async () => {
    const found = await scanEnvironment(new SecretScanner(), [
      { from: 'image ENV', name: 'PATH', value: '/usr/local/bin:/usr/bin' },
      { from: 'pitch.json run.env', name: 'DEMO_MODE', value: 'mock' },
      { from: 'pitch.json run.env', name: 'API_TOKEN', value: randomKey() },
    ]);
    expect(found).toEqual([
      { where: 'pitch.json run.env API_TOKEN', line: 0, rule: 'HighEntropyAssignment, pitch/high-entropy-assignment' },
    ]);
  });
});

describe('the container bundle scan', () => {
  it("scans the layers the build added and passes over the base image's", async () => {
    const secret = `API_SECRET=${randomKey()}\n`;
    const base = await tarOf({ 'etc/base.conf': secret });
    const baseId = createHash('sha256').update(base).digest('hex');
    const own = await tarOf({
      'app/server.js': 'console.log("hello")\n',
      'app/.env': secret,
      'app/node_modules/dep/.env': secret,
      'app/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    });
    const ownId = createHash('sha256').update(own).digest('hex');
    // As podman saves an image: each layer a tar named by its diff id, beside manifest.json.
    const bundle = await tarOf({
      [`${baseId}.tar`]: base,
      [`${ownId}.tar`]: own,
      'manifest.json': JSON.stringify([{ Config: 'config.json', Layers: [`${baseId}.tar`, `${ownId}.tar`] }]),
    });
    const scan = await scanBundle(new SecretScanner(), Readable.from([bundle]), new Set([baseId]));
    expect(scan).toMatchObject({ layers: 1, baseLayers: 1, files: 2 });
    expect(scan.findings).toEqual([{ where: 'image /app/.env', line: 1, rule: 'HighEntropyAssignment, pitch/high-entropy-assignment' }]);

    // Without knowing the base, its layer is scanned too.
    const all = await scanBundle(new SecretScanner(), Readable.from([bundle]), new Set());
    expect(all.findings.map((f) => f.where)).toEqual(['image /etc/base.conf', 'image /app/.env']);
  });
});

describe('the advice of a refusal', () => {
  // Issue 47: a disable comment was advised for a finding in a JSON file, which holds no comment.
  it('offers a disable comment where a comment can go, and a made-up value in a JSON file', () => {
    const rule = 'HighEntropyAssignment, pitch/high-entropy-assignment';
    expect(secretsRefusal('the project folder', [{ where: 'src/settings.ts', line: 2, rule }]).hint).toMatch(/secretlint-disable-line/);
    const inJson = secretsRefusal('the project folder', [{ where: 'config/app.json', line: 3, rule }]).hint;
    expect(inJson).not.toMatch(/secretlint-disable-line/);
    expect(inJson).toMatch(/JSON holds no comment/);
    expect(inJson).toMatch(/made-up value/);
  });
});
