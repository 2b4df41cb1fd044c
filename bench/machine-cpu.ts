import { cpus } from 'node:os';

// The whole machine's CPU time, every process's (the tool, the engine and its helpers, the
// registry, the store, the api, Postgres): what a step costs the machine, beside how long it takes.
// A step that keeps every core busy cannot end sooner by running its parts in another order, only
// by doing less (docs/scale.md, issue 48).

/** CPU-seconds every core has spent busy since boot (user, nice, system and interrupts). */
export function machineBusySeconds(): number {
  return cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0) / 1000;
}
