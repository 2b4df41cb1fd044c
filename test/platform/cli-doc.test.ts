import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, symlink } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, SESSION_COOKIE } from '@demo-rooms/contract';
import { issueToken } from '../../services/ops/ops.service.js';
import { PITCH_BIN } from '../cli/support/pitch.js';
import { startPlatform, type Platform } from '../support/platform.js';

// docs/cli.md's "Your first demo, step by step", run as a newcomer would (issue 47: the page must
// walk a newcomer through what it says). Each shell block's commands run in one folder of the
// test's own, one after another (a `cd` carries over), with `pitch` on the PATH as `npm link`
// puts it, against a platform of the test's own at its address instead of 127.0.0.1:8080. Each
// `# …` line under a command is what it prints, and every literal part of it ("…" is anything)
// must show, in order. `pitch login` is approved as the page says, by a signed-in person.

const doc = readFileSync(path.join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Your first demo, step by step'), doc.indexOf('## Container demos'));
const DOC_API = 'http://127.0.0.1:8080';

interface Step {
  command: string;
  answer: string;
}

/** The commands of every ```sh block, each with the `# ` lines below it as its answer. */
function steps(): Step[] {
  const out: Step[] = [];
  for (const [, block] of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block.split('\n')) {
      // Lines of one answer are in order, with anything between them.
      if (line.startsWith('# ')) out[out.length - 1].answer += (out[out.length - 1].answer ? '…' : '') + line.slice(2);
      else if (line.trim()) out.push({ command: line, answer: '' });
    }
  }
  return out;
}

/** The answer's literal parts, in order ("…" stands for anything). */
const answerPattern = (answer: string) =>
  new RegExp(
    answer
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*'),
  );

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

it("runs docs/cli.md's first demo, step by step, and each command answers as the page says", async () => {
  const person = await platform.person({ plan: 'solo' });
  const home = await mkdtemp(path.join(tmpdir(), 'cli-doc-'));
  // What `npm link` does: a `pitch` on the PATH that is the repository's bin.
  const bin = path.join(home, 'bin');
  await mkdir(bin);
  await symlink(PITCH_BIN, path.join(bin, 'pitch'));
  const { PP_TOKEN: _token, PITCH_API: _api, ...inherited } = process.env;
  const env = {
    ...inherited,
    PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    PITCH_API: platform.baseUrl,
    XDG_CONFIG_HOME: path.join(home, 'config'),
  };
  const cwdFile = path.join(home, 'cwd');
  let cwd = home;
  // The project's address is made from its name: a name of this run's own, as the address is
  // the platform's, not the workspace's.
  const name = `Hello demo ${randomUUID().slice(0, 8)}`;

  /** Runs one line of the page in the folder the last one left, and keeps where it ends. */
  function run(command: string, onOutput: (all: string) => void = () => {}) {
    const child = spawn('bash', ['-c', `${command}\nstatus=$?\npwd > '${cwdFile}'\nexit $status`], { cwd, env });
    child.stdin.end();
    let all = '';
    const take = (chunk: Buffer) => {
      all += chunk.toString();
      onOutput(all);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    return new Promise<{ code: number | null; all: string }>((resolve) => child.on('close', (code) => resolve({ code, all })));
  }

  const found = steps();
  expect(found.map((s) => s.command.split(' ').slice(0, 2).join(' '))).toEqual([
    'cd /path/to/this/repository',
    'mkdir -p',
    "echo '<!doctype",
    'pitch login',
    'pitch whoami',
    'pitch init',
    'pitch validate',
    'pitch deploy',
    'pitch links',
    'pitch links',
    'pitch deploy',
  ]);
  for (const step of found) {
    // Done above: the test's PATH has the repository's `pitch`, and nothing global is changed.
    if (step.command.endsWith('npm link')) continue;
    const command = step.command.replaceAll('"Hello demo"', `"${name}"`);
    let approving: Promise<unknown> | null = null;
    const ran = await run(command, (all) => {
      // `pitch login`: the person opens the address, signed in, and presses Approve.
      const code = /confirm the code ([A-Z]{4}-[A-Z]{4})/.exec(all);
      if (!code || approving) return;
      approving = issueToken(platform.deps.sql, person.email, { kind: 'web' }).then(({ token }) =>
        createClient({ baseUrl: platform.baseUrl, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: platform.baseUrl } }).call(
          'deviceApprove',
          { body: { userCode: code[1] } },
        ),
      );
    });
    await approving;
    expect(ran.code, `${command}\n${ran.all}`).toBe(0);
    cwd = (await readFile(cwdFile, 'utf8')).trim();
    const answer = step.answer
      .replaceAll(DOC_API, platform.baseUrl)
      .replaceAll('you@example.com', person.email)
      .replaceAll('"Hello demo"', `"${name}"`);
    expect(ran.all, command).toMatch(answerPattern(answer));
  }
  // What the page promised at the end: a live build, and Ada's link.
  const [project] = await person.client.call('listProjects', {});
  expect(project.name).toBe(name);
  const links = await person.client.call('listLinks', { params: { projectId: project.id } });
  expect(links.map((l) => l.viewerName)).toEqual(['Ada Lovelace']);
});
