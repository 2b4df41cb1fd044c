import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanFolder } from './scan-folder.js';
import { linterHere, type Linter } from './scan-thread.js';
import { SecretScanner } from './secret-scan.js';

// The folder's scan reads and lints several files at once (scan-folder.ts), and a scanner asked
// for the same files twice at once, as a redeploy's head start and then its own scan do
// (head-start.ts), reads and lints each once. The rules are the real ones; the linter around
// them only counts and holds each text a moment, so that texts overlap.

// An AWS access key id as secretlint's rule knows it, made here so that no file of the repository holds one.
const KEY = ['AKIA', 'FAKE'.repeat(4)].join('');

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A folder of twelve text files, b.txt and sub/k.txt with a key, and a node_modules the scan never reads. */
async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'scan-folder-'));
  folders.push(dir);
  await mkdir(join(dir, 'sub'));
  await mkdir(join(dir, 'node_modules'));
  for (const name of 'acdefghij') await writeFile(join(dir, `${name}.txt`), `plain text ${name}\n`);
  await writeFile(join(dir, 'b.txt'), `const id = "${KEY}";\n`);
  await writeFile(join(dir, 'sub', 'k.txt'), `aws_access_key_id = ${KEY}\n`);
  await writeFile(join(dir, 'sub', 'l.txt'), 'nothing here\n');
  await writeFile(join(dir, 'node_modules', 'm.txt'), `const id = "${KEY}";\n`);
  return dir;
}

/** The real rules, counted: how many texts were linted, and the most linted at once. */
function countingLinter(): Linter & { linted: string[]; mostAtOnce: number } {
  let now = 0;
  const counted = {
    linted: [] as string[],
    mostAtOnce: 0,
    ready: Promise.resolve(false),
    close: async () => {},
    async lint(where: string, content: string) {
      counted.linted.push(where);
      counted.mostAtOnce = Math.max(counted.mostAtOnce, ++now);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await linterHere.lint(where, content);
      } finally {
        now--;
      }
    },
  };
  return counted;
}

describe("the project folder's scan", () => {
  it('lints several files at once and reports the findings in the order of the folder', async () => {
    const dir = await project();
    const linter = countingLinter();
    const scan = await scanFolder(new SecretScanner(linter), dir, (rel) => rel);
    expect(scan.files).toBe(12);
    expect(scan.binary).toBe(0);
    expect(scan.findings.map((finding) => finding.where)).toEqual(['b.txt', 'sub/k.txt']);
    expect(scan.findings.every((finding) => /AWSAccessKeyID/.test(finding.rule))).toBe(true);
    expect(linter.mostAtOnce).toBeGreaterThan(1);
    expect(linter.linted).not.toContain('node_modules/m.txt');
  });

  it('asked twice at once, reads and lints each file once, and both answers hold the findings', async () => {
    const dir = await project();
    const linter = countingLinter();
    const scanner = new SecretScanner(linter);
    const [ahead, own] = await Promise.all([scanFolder(scanner, dir, (rel) => rel), scanFolder(scanner, dir, (rel) => rel)]);
    // Two files hold the same text (the key's line differs: b.txt and k.txt are linted apart).
    expect(linter.linted.length).toBe(12);
    expect(own).toEqual(ahead);
    expect(own.findings.map((finding) => finding.where)).toEqual(['b.txt', 'sub/k.txt']);
  });

  it('once stopped, reads and lints no further file', async () => {
    const dir = await project();
    const linter = countingLinter();
    const stop = new AbortController();
    stop.abort();
    const scan = await scanFolder(new SecretScanner(linter), dir, (rel) => rel, undefined, stop.signal);
    expect(linter.linted).toEqual([]);
    expect(scan).toEqual({ files: 0, binary: 0, findings: [] });
    // A scan of its own afterwards is whole: a stopped scan leaves nothing behind in the scanner.
    expect((await scanFolder(new SecretScanner(linter), dir, (rel) => rel)).findings).toHaveLength(2);
  });
});
