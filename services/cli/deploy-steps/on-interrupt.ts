import { requestAfterExit, type EngineRequests } from '../local-engine/after-exit.js';

// What must not outlive the tool (a rehearsal copy, a deploy's image tag) is registered here while
// it exists. On Ctrl-C or SIGTERM every registered cleanup runs, newest first, then the tool exits
// 130; a second Ctrl-C exits at once.

const cleanups: (() => Promise<void>)[] = [];
/** Cleanups left to finish while the tool goes on (a rehearsal copy's removal): the tool's end waits for them. */
const finishing = new Set<Promise<void>>();
/** Engine calls handed to a process of their own at the tool's end (after-exit.ts), each with the way to make them here instead. */
const afterExit: { job: EngineRequests; here: () => Promise<void> }[] = [];
let stopping = false;

function onSignal(signal: NodeJS.Signals): void {
  if (stopping) process.exit(130);
  stopping = true;
  process.stderr.write(`\npitch: stopped by ${signal}; cleaning up\n`);
  void (async () => {
    for (const cleanup of [...cleanups].reverse()) await cleanup().catch(() => {});
    await cleanupsFinished();
  })().finally(() => process.exit(130));
}

/** Whether the tool is stopping on a signal: what fails meanwhile is the cleanup's doing, not news. */
export const interrupted = (): boolean => stopping;

/**
 * Runs `work`, then `cleanup` however it ends, also when the person stops the tool meanwhile.
 * With `inBackground`, the cleanup is started and not waited for: the tool goes on, and its end
 * (cleanupsFinished) or a Ctrl-C meanwhile waits for it. A copy's removal takes a quarter of a
 * second that the push and the build's creation can use.
 */
export async function cleanedUpOnInterrupt<T>(
  work: () => Promise<T>,
  cleanup: () => Promise<void>,
  options: { inBackground?: boolean } = {},
): Promise<T> {
  if (cleanups.length === 0) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  cleanups.push(cleanup);
  try {
    return await work();
  } finally {
    const done = cleanup().finally(() => {
      cleanups.splice(cleanups.indexOf(cleanup), 1);
      if (cleanups.length === 0) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
    if (options.inBackground) finishInBackground(done);
    else await done;
  }
}

/**
 * Work the tool need not wait for now but must see finished before it ends (an engine call left
 * half made is a copy or an image left behind): cleanupsFinished waits for it. Its failure is
 * nobody's news: it only tidies.
 */
export function finishInBackground(work: Promise<unknown>): void {
  const tracked: Promise<void> = work.then(
    () => {},
    () => {},
  );
  finishing.add(tracked);
  void tracked.finally(() => finishing.delete(tracked));
}

/**
 * Engine calls (a rehearsal copy's removal) that the tool's end hands to a process of its own
 * rather than waiting for them; `here` makes them in the tool when that process cannot be started.
 */
export function requestAtEnd(job: EngineRequests, here: () => Promise<void>): void {
  afterExit.push({ job, here });
}

/**
 * Waits for the cleanups left running in the background, then starts the calls handed over
 * (requestAtEnd) in a process of their own: a tool that ends leaves nothing behind that is not
 * already being removed.
 */
export async function cleanupsFinished(): Promise<void> {
  while (finishing.size > 0) await Promise.all([...finishing]);
  const handed = afterExit.splice(0);
  if (!requestAfterExit(handed.map((each) => each.job))) await Promise.all(handed.map((each) => each.here().catch(() => {})));
}
