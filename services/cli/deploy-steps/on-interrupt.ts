// What must not outlive the tool (a rehearsal copy, a deploy's image tag) is registered here while
// it exists. On Ctrl-C or SIGTERM every registered cleanup runs, newest first, then the tool exits
// 130; a second Ctrl-C exits at once.

const cleanups: (() => Promise<void>)[] = [];
let stopping = false;

function onSignal(signal: NodeJS.Signals): void {
  if (stopping) process.exit(130);
  stopping = true;
  process.stderr.write(`\npitch: stopped by ${signal}; cleaning up\n`);
  void (async () => {
    for (const cleanup of [...cleanups].reverse()) await cleanup().catch(() => {});
  })().finally(() => process.exit(130));
}

/** Whether the tool is stopping on a signal: what fails meanwhile is the cleanup's doing, not news. */
export const interrupted = (): boolean => stopping;

/** Runs `work`, then `cleanup` however it ends, also when the person stops the tool meanwhile. */
export async function cleanedUpOnInterrupt<T>(work: () => Promise<T>, cleanup: () => Promise<void>): Promise<T> {
  if (cleanups.length === 0) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  cleanups.push(cleanup);
  try {
    return await work();
  } finally {
    cleanups.splice(cleanups.indexOf(cleanup), 1);
    if (cleanups.length === 0) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    await cleanup();
  }
}
