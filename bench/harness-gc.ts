import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The benches that deploy host the platform they measure in their own process (startPlatform), and
// its major garbage collections (60-80 ms of CPU each, every 1.2-1.5 s of deploys, measured in
// session 53) fell into whichever deploy of the bench's fixed cycle was running then, most often
// the same kind each time: the platform's CPU per deploy was 45-77 ms or 150-190 ms by where it
// fell, and a two-core machine busy with a container redeploy's engine work felt it more than a
// static redeploy did. Each timed deploy now starts with the harness's garbage collected, so no
// deploy carries the collection of the ones before it (docs/scale.md, "Session 53").

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects the bench process's garbage (untimed), before a timed deploy or validate starts. */
export function collectHarnessGarbage(): void {
  gc();
}
