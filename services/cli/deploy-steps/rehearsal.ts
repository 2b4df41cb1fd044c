import type Docker from 'dockerode';
import type { ContainerManifest, Manifest, StepCall } from '@demo-rooms/contract/manifest';
import type { Rehearsal as ContractRehearsal } from '@demo-rooms/contract';
import { OUT_OF_WRITABLE_SPACE, writableSpaceHint } from '@demo-rooms/contract/copy';
import { removeLeftRehearsals } from '../local-engine/left-rehearsals.js';
import { RUNNER_DEFAULTS, startLocalCopy, type LocalCopy } from '../local-engine/local-copy.js';
import { exchange, type ExchangeOptions } from '../node-http.js';
import { Refusal } from '../refusal.js';
import { version } from '../version.js';
import { cleanedUpOnInterrupt, finishInBackground, interrupted, requestAtEnd } from './on-interrupt.js';

// The rehearsal: the deploy starts a local copy of the container and does what a viewer's copy
// will meet: its health path must answer 200, then each story step's calls are made in order.
// What it saw is sent with createBuild as `rehearsal`; the tour shows each step's result.

/** What createBuild takes as `rehearsal` (the contract's schema): the platform checks it again. */
export type Rehearsal = ContractRehearsal;
export type CallRecord = Rehearsal['steps'][number]['calls'][number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often the health wait asks the engine whether the copy still runs (ms). */
const STATE_EVERY_MS = 100;

/**
 * A call on the copy, and the status it answered (its body is not read). Over node:http, not fetch
 * (config/platform-request.ts), and like the runner's calls and health probe it follows no
 * redirect: only the path's own answer counts.
 */
async function answer(copy: LocalCopy, path: string, options: ExchangeOptions): Promise<number> {
  const reply = await exchange(new URL(copy.baseUrl + path), options);
  reply.resume();
  return reply.statusCode ?? 0;
}

/** A static build has no calls to make: each step is recorded as nothing to run, never as passed. */
export function staticRehearsal(manifest: Manifest): Rehearsal {
  return {
    tool: `pitch/${version}`,
    at: new Date().toISOString(),
    health: null,
    steps: (manifest.story ?? []).map((step) => ({ id: step.id, result: 'nothing-to-run', calls: [] })),
  };
}

/** The copy's last line of output, for the hint; a copy that ran out of writable space is told so. */
async function lastLine(copy: LocalCopy): Promise<string | undefined> {
  const tail = await copy.logTail(5);
  const full = tail.find((line) => OUT_OF_WRITABLE_SPACE.test(line));
  if (full) return `${writableSpaceHint(RUNNER_DEFAULTS.writableMb)}; it said: ${full}`;
  return tail.length ? `its last output: ${tail.at(-1)}` : undefined;
}

/** Waits until the health path answers 200; a copy that stops or never answers is a refusal. */
export async function waitForHealth(copy: LocalCopy, path: string, timeoutMs: number): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  let last = 'no answer';
  // The first look 100 ms in: a Node server most often answers before, and an inspect while the
  // copy starts takes the engine's time from that start and holds the next try for its answer.
  let looked = started;
  while (Date.now() - started < timeoutMs) {
    try {
      const status = await answer(copy, path, { idleMs: Math.min(2000, timeoutMs) });
      if (status === 200) return { status: 200, ms: Date.now() - started };
      last = `it answered ${status}`;
    } catch {
      last = 'no answer';
    }
    // Whether it still runs is the engine's answer (an inspect): asked every 100 ms, not at each
    // try, so the engine's time goes to the copy's start rather than to our questions.
    if (Date.now() - looked >= STATE_EVERY_MS) {
      looked = Date.now();
      const { running, exitCode } = await copy.state();
      if (!running) {
        throw new Refusal(
          `the local copy stopped (exit code ${exitCode}) before its health path ${path} answered`,
          await lastLine(copy),
          await copy.logTail(),
        );
      }
    }
    // Often within a second: asked every 10 ms until then (a Node server listens 0.05 to 0.3 s
    // after its start, and each wait here is the deploy's), every 250 ms after.
    await sleep(Date.now() - started < 1000 ? 10 : 250);
  }
  throw new Refusal(
    `the local copy's health path ${path} did not answer 200 within ${Math.round(timeoutMs / 1000)} s (${last})`,
    (await lastLine(copy)) ?? 'the server must listen on PORT and HOST and answer its health path with 200',
    await copy.logTail(),
  );
}

function callOf(item: StepCall): { call: string; body?: unknown } {
  return typeof item === 'string' ? { call: item } : item;
}

/** Each story step's calls, in order, on the copy; the first that fails (no answer, or not 2xx) stops the deploy. */
export async function rehearseStory(copy: LocalCopy, manifest: Manifest): Promise<Rehearsal['steps']> {
  const steps: Rehearsal['steps'] = [];
  for (const step of manifest.story ?? []) {
    const run = 'run' in step && Array.isArray(step.run) ? step.run : [];
    if (run.length === 0) {
      steps.push({ id: step.id, result: 'nothing-to-run', calls: [] });
      continue;
    }
    const calls: CallRecord[] = [];
    for (const [index, item] of run.entries()) {
      const { call, body } = callOf(item);
      const [method, path] = call.split(' ');
      const started = Date.now();
      const where = `story step ${step.id}, call ${index + 1} (${call})`;
      let status: number;
      try {
        // A redirect is an answer, not a success: the runner judges the call's own status.
        status = await answer(copy, path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          idleMs: 15_000,
        });
      } catch (err) {
        throw new Refusal(
          `the rehearsal failed: ${where} did not answer (${(err as Error).message})`,
          await lastLine(copy),
          await copy.logTail(),
        );
      }
      // As the runner judges a viewer's calls: only 2xx passes.
      if (status < 200 || status > 299) {
        throw new Refusal(`the rehearsal failed: ${where} answered ${status}`, await lastLine(copy), await copy.logTail());
      }
      calls.push({ call, status, ms: Date.now() - started });
    }
    steps.push({ id: step.id, result: 'passed', calls });
  }
  return steps;
}

/** After a health call the copy cut or refused, how often and how far apart its state is looked at again. */
const EXIT_LOOKS = 10;
const EXIT_LOOK_MS = 200;
const CUT_OFF = /ECONNRESET|ECONNREFUSED|EPIPE|socket hang up/;

/**
 * After the story: the copy must still run and still answer its health path. A demo that
 * answered the calls and then died (json-server on a read-only file, a crash on the first
 * write) would be "the demo stopped" in front of a viewer; here it fails the deploy with its
 * last output.
 */
export async function checkStillUp(copy: LocalCopy, path: string, callsMade: number): Promise<void> {
  const stopped = async () => {
    const { running, exitCode } = await copy.state();
    if (running) return;
    throw new Refusal(
      `the local copy stopped (exit code ${exitCode}) after the story's calls`,
      await lastLine(copy),
      await copy.logTail(50),
    );
  };
  // A moment for a crash the last call set off to land (an exit after the answer was sent). With
  // no story calls, the only call was the health path's, which the check below makes again; the
  // copy ran when it answered a moment ago, so only the look after that call is asked.
  if (callsMade > 0) {
    await sleep(300);
    await stopped();
  }
  let status: number | string;
  try {
    status = await answer(copy, path, { idleMs: 5000 });
  } catch (err) {
    status = (err as Error).message;
  }
  await stopped();
  if (status !== 200) {
    // A copy that died with the call (its answer cut: a reset) may still show as running for a
    // moment, while the engine learns of its end: its exit is the refusal when it comes.
    const cutOff = typeof status === 'string' && CUT_OFF.test(status);
    for (let look = 0; cutOff && look < EXIT_LOOKS; look++) {
      await sleep(EXIT_LOOK_MS);
      await stopped();
    }
    throw new Refusal(
      `the local copy's health path ${path} answered ${status} after the story's calls`,
      await lastLine(copy),
      await copy.logTail(50),
    );
  }
}

/** A rehearsal under way on a local copy, and the way to stop it early (another check already failed). */
export interface RunningRehearsal {
  result: Promise<Rehearsal>;
  /** Settles once the engine has been asked to start the copy, or the copy could not be made. */
  startAsked: Promise<void>;
  /** Removes the copy and waits for the rehearsal to end (failed: its failure is nobody's news). */
  stop(): Promise<void>;
}

/** How long a Ctrl-C waits for the copy being made, to remove it; past that it is the next rehearsal's to sweep. */
const START_WAIT_ON_INTERRUPT_MS = 10_000;

/**
 * The whole rehearsal, started now and run beside the image's scan: a local copy of the image
 * (startLocalCopy), its health, the story's calls, still up after them; the copy removed however
 * it ends, also on Ctrl-C.
 */
export function rehearseLocally(
  docker: Docker,
  image: string,
  manifest: ContainerManifest,
  run: { start: string[] | null; env?: Record<string, string> },
  healthTimeoutMs: number,
  trace: (line: string) => void = () => {},
): RunningRehearsal {
  let copy: LocalCopy | null = null;
  let stopped = false;
  let startAsked!: () => void;
  const asked = new Promise<void>((resolve) => (startAsked = resolve));
  const starting = startLocalCopy(docker, image, run.start, run.env ?? {}, startAsked);
  starting.then(startAsked, startAsked);
  // One cleanup from the start on, however the rehearsal ends: the copy removed once made, in the
  // background while the deploy goes on to the push (the deploy's end waits for it). On a Ctrl-C
  // while the engine makes the copy, the create and start it was asked for are waited for (the
  // engine finishes them), so the copy is removed before the tool exits, not left for the next
  // rehearsal's sweep.
  const result = cleanedUpOnInterrupt(
    async () => {
      const started = await starting;
      copy = started;
      trace('rehearsal copy made and started');
      if (stopped) {
        // Gone before stop() returns, as it promises; the cleanup's second removal finds nothing.
        await started.remove();
        throw new Refusal('the rehearsal was stopped');
      }
      const health = await waitForHealth(started, manifest.health, healthTimeoutMs);
      trace('rehearsal copy healthy');
      const steps = await rehearseStory(started, manifest);
      await checkStillUp(
        started,
        manifest.health,
        steps.reduce((n, step) => n + step.calls.length, 0),
      );
      trace('rehearsal copy still up after the story');
      return { tool: `pitch/${version}`, at: new Date().toISOString(), health: { path: manifest.health, ...health }, steps };
    },
    async () => {
      // Settled already unless the tool was stopped meanwhile; the bound's timer holds no exit up.
      const bound = new Promise<null>((resolve) => setTimeout(resolve, START_WAIT_ON_INTERRUPT_MS, null).unref());
      const made = await Promise.race([starting.catch(() => null), bound]);
      // Its checks over, the copy is left running (it only waits) and removed by a process of its
      // own once the tool has ended (after-exit.ts); on a Ctrl-C, here, before the tool exits.
      const removal = interrupted() ? null : made?.removal();
      if (made && removal) requestAtEnd(removal, () => made.remove());
      else await made?.remove();
    },
    { inBackground: true },
  );
  // Whatever an earlier tool killed outright left behind goes once this copy's checks are over: a
  // list of the engine's containers, and their removal, took its time from this copy's create and
  // start. The tool's end waits for it.
  finishInBackground(result.catch(() => {}).then(() => removeLeftRehearsals(docker)));
  // Awaited later, after the scan: a failure meanwhile is not an unhandled one.
  result.catch(() => {});
  return {
    result,
    startAsked: asked,
    async stop() {
      stopped = true;
      await copy?.remove();
      // Ended once its next look at the copy finds it gone: nothing is left running behind the refusal.
      await result.catch(() => {});
    },
  };
}
