import type { NextStep, NextStepInput, NextStepKind } from '@demo-rooms/contract';
import type { Db, Sql } from '../core/infra/db.js';
import { planOf, type PlanName } from '../core/rules/plans.js';

// A project's What happens next steps (migrations/00010, docs/decisions/viewer-voice.md). A
// project that never set them offers the defaults below. A step left out keeps its words (a row
// with no position), so putting it back restores them.

/** Each kind's own words, used until the builder gives theirs. */
export const defaultWords: Record<NextStepKind, Omit<NextStep, 'kind'>> = {
  meeting: { label: 'Book a meeting', prompt: 'Pick a time that suits you.', url: null },
  yes: { label: "Yes, let's go ahead", prompt: null, url: null },
  later: { label: 'Not now, maybe later', prompt: null, url: null },
  colleague: { label: 'Bring in a colleague', prompt: 'Who else should see this? Nothing is sent to them.', url: null },
  question: { label: 'Ask a question', prompt: 'Your question goes straight to the person who sent you this demo.', url: null },
  no: { label: 'No, thanks', prompt: null, url: null },
};

/** What a room offers before its builder chose: a yes, a question and a later. */
export const defaultKinds: NextStepKind[] = ['yes', 'question', 'later'];

type StepRow = NextStep & { position: number | null };

const withDefaults = (kind: NextStepKind): NextStep => ({ kind, ...defaultWords[kind] });

/** The project's steps in order and the words kept of removed ones. */
export async function nextStepsOf(sql: Db, projectId: string): Promise<{ steps: NextStep[]; removed: NextStep[] }> {
  const rows = await sql<StepRow[]>`
    select kind, label, prompt, url, position from next_steps where project_id = ${projectId}
    order by position nulls last, kind`;
  if (!rows.length) return { steps: defaultKinds.map(withDefaults), removed: [] };
  const bare = ({ kind, label, prompt, url }: StepRow): NextStep => ({ kind, label, prompt, url });
  return { steps: rows.filter((r) => r.position !== null).map(bare), removed: rows.filter((r) => r.position === null).map(bare) };
}

/** The steps a room offers on `plan`: the builder's when the plan lets them choose, else a question alone. */
export function offeredOn(plan: PlanName, steps: NextStep[]): NextStep[] {
  if (planOf(plan).chooseNextSteps) return steps;
  return [steps.find((s) => s.kind === 'question') ?? withDefaults('question')];
}

/** A step whose words, merged, still lack what its kind needs: a meeting without a booking address. */
export class StepIncomplete extends Error {
  constructor(
    readonly index: number,
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Replaces the project's steps with `inputs`, in that order. Words left out are the step's own
 * (current or kept from its removal), else the defaults; steps left out keep their words with no
 * position. Throws StepIncomplete, changing nothing, when a meeting ends up with no address.
 */
export async function saveNextSteps(sql: Sql, project: { id: string; workspaceId: string }, inputs: NextStepInput[]) {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('next-steps:' || ${project.id}))`;
    const { steps, removed } = await nextStepsOf(tx, project.id);
    const known = new Map([...removed, ...steps].map((s) => [s.kind, s]));
    const merged = inputs.map((input, i) => {
      const before = known.get(input.kind) ?? withDefaults(input.kind);
      const step: NextStep = {
        kind: input.kind,
        label: input.label ?? before.label,
        prompt: input.prompt === undefined ? before.prompt : input.prompt,
        url: input.kind !== 'meeting' ? null : input.url === undefined ? before.url : input.url,
      };
      if (step.kind === 'meeting' && !step.url)
        throw new StepIncomplete(i, 'url', 'a meeting step needs its booking address (an http or https URL)');
      return step;
    });
    // Every kind the project has known keeps a row: offered ones with their position, the rest without.
    const kept = [...known.values()].filter((s) => !merged.some((m) => m.kind === s.kind));
    const rows = [...merged.map((s, position) => ({ ...s, position })), ...kept.map((s) => ({ ...s, position: null }))];
    await tx`delete from next_steps where project_id = ${project.id}`;
    for (const r of rows) {
      await tx`
        insert into next_steps (project_id, workspace_id, kind, label, prompt, url, position)
        values (${project.id}, ${project.workspaceId}, ${r.kind}, ${r.label}, ${r.prompt}, ${r.url}, ${r.position})`;
    }
  });
}
