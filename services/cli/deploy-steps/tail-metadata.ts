import type { BuildRecipe } from '../local-engine/build-recipe.js';
import { NoTail, splitDockerfile, type DockerfileSplit, type TailStep } from '../local-engine/dockerfile-tail.js';
import { fieldsSet, finalStage, modelConfig, sameFields, type ConfigFields } from '../local-engine/tail-config.js';

// A redeploy whose Dockerfile tail (the steps after its last RUN) is not the live build's text:
// laid in-process only when its COPY and WORKDIR steps are the live ones, in the same order, so the
// layers are the same steps' and only metadata changed (issue 48, item 1). The new config's fields
// are worked out by tail-config.ts, after the same working-out on the live Dockerfile has given
// the live image's own fields: a reading of the Dockerfile that does not give what the engine
// wrote is not trusted with the new one.

/**
 * The live build's tail steps (its history's last entries), the config fields to write (null: the
 * live ones) and those that differ from the live config; or why the engine must build.
 */
export type TailChange = { liveTail: TailStep[]; fields: ConfigFields | null; changed: string[] } | { reason: string };

export async function tailChange(
  split: DockerfileSplit,
  recipe: BuildRecipe,
  liveRecipe: BuildRecipe,
  liveConfig: ConfigFields,
  baseConfig: (reference: string) => Promise<ConfigFields | null>,
): Promise<TailChange> {
  if (recipe.tail === liveRecipe.tail) return { liveTail: split.tail, fields: null, changed: [] };
  if (liveRecipe.tailText === undefined || recipe.tailText === undefined)
    return { reason: 'the steps after its last RUN changed, and the record of the live build has not their text to compare' };
  const nowText = split.head + recipe.tailText;
  const liveText = split.head + liveRecipe.tailText;
  try {
    const live = splitDockerfile(liveText);
    // The same steps, only comments or blank lines moved: the live config and history as they are.
    if (stepsText(live.tail) === stepsText(split.tail)) return { liveTail: live.tail, fields: null, changed: [] };
    if (layerSteps(live.tail) !== layerSteps(split.tail))
      return { reason: 'the steps after its last RUN changed beyond their metadata (a COPY or WORKDIR added, removed or changed)' };
    const headLines = split.head.split('\n').length;
    const now = finalStage(nowText);
    const before = finalStage(liveText);
    const inTail = (steps: typeof now.steps) => steps.filter((step) => step.getRange().start.line >= headLines);
    const fields = new Set([...fieldsSet(inTail(now.steps)), ...fieldsSet(inTail(before.steps))]);
    // WORKDIR steps are the live ones (above): the working folder is the live config's.
    fields.delete('WorkingDir');
    const base = now.base === null ? {} : await baseConfig(now.base);
    if (!base) return { reason: `the base image ${now.base} is not in the engine to read its config from` };
    const keys = [...fields].flatMap((field) => (field === 'Cmd' ? (['Cmd', 'Entrypoint'] as const) : [field]));
    if (!sameFields(modelConfig(base, before.steps, fields, liveConfig), liveConfig, keys))
      return { reason: `pitch's reading of the live Dockerfile's last steps does not give the live image's ${keys.join(', ')}` };
    const written = modelConfig(base, now.steps, fields, liveConfig);
    const changed = keys.filter((key) => !sameFields(written, liveConfig, [key]));
    return { liveTail: live.tail, fields: written, changed };
  } catch (err) {
    if (err instanceof NoTail) return { reason: err.message };
    throw err;
  }
}

/** Every step of the tail as a comparable text, lines left out. */
function stepsText(tail: TailStep[]): string {
  return JSON.stringify(tail.map((step) => (step.kind === 'metadata' ? step.text : layerSteps([step]))));
}

/** The tail's COPY and WORKDIR steps as a comparable text (lines left out: a metadata step may move them). */
function layerSteps(tail: TailStep[]): string {
  return JSON.stringify(
    tail.flatMap((step) =>
      step.kind === 'copy' ? [['COPY', step.copy.sources, step.copy.dest]] : step.kind === 'workdir' ? [['WORKDIR', step.path]] : [],
    ),
  );
}
