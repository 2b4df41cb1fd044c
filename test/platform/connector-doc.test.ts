import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { opsCommand } from '../support/ops-command.js';
import { startPlatform, type Platform } from '../support/platform.js';

// docs/connector.md's "Getting a token", run as a newcomer would (issue 47, item 5: its curl with
// a pitch token answered 403 where the page promised a token). Each shell block's commands run
// against a platform of the test's own, at its address instead of 127.0.0.1:8080; each `# …` line
// under a command is what it answers, and every literal part of it ("…" is anything) must show.

const run = promisify(execFile);
const doc = readFileSync(path.join(import.meta.dirname, '../../docs/connector.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Getting a token'), doc.indexOf('## Adding it to an assistant'));

interface Step {
  command: string;
  answer: string;
}

/** The commands of every ```sh block, continuation lines joined, each with the `# ` answer below it. */
function steps(): Step[] {
  const out: Step[] = [];
  for (const [, block] of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
      if (line.startsWith('# ')) out[out.length - 1].answer = line.slice(2);
      else if (line.trim()) out.push({ command: line.replace(/\s+#.*$/, ''), answer: '' });
    }
  }
  return out;
}

/** The answer's literal parts, in order ("…" stands for anything). */
const answerPattern = (answer: string) =>
  new RegExp(
    answer
      .split('…')
      .map((part) =>
        part
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/: /g, ': ?')
          .replace(/, /g, ', ?'),
      )
      .join('[\\s\\S]*'),
  );

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

it("runs docs/connector.md's commands for getting a token, and each answers as the page says", async () => {
  const cli = await platform.person();
  const env: Record<string, string> = { PP_TOKEN: cli.token };
  const found = steps();
  expect(found.map((s) => s.command.split(' ').slice(0, 3).join(' '))).toEqual([
    'npm run ops',
    'curl -s -X',
    'export PP_CONNECTOR_TOKEN=pp_con_…',
    'curl -s -X',
  ]);
  for (const step of found) {
    const command = step.command.replaceAll('http://127.0.0.1:8080', platform.baseUrl);
    let output: string;
    if (command.startsWith('npm run ops -- ')) {
      const args = command
        .slice('npm run ops -- '.length)
        .split(' ')
        .map((a) => (a === 'you@example.com' ? cli.email : a));
      const result = await opsCommand(platform, ...args);
      expect(result.code, result.stderr).toBe(0);
      output = result.stdout.trim().split('\n').at(-1)!;
      env.PP_CONNECTOR_TOKEN = output; // what the next block's export sets
    } else if (command.startsWith('export ')) {
      continue;
    } else {
      output = (await run('bash', ['-c', command], { env: { ...process.env, ...env } })).stdout;
    }
    // The answer, compacted as the page writes it (JSON with spaces after colons and commas).
    expect(output, command).toMatch(answerPattern(step.answer));
  }
});
