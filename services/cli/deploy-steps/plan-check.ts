import { z } from 'zod';
import type { Client } from '@demo-rooms/contract';
import type { Manifest } from '@demo-rooms/contract/manifest';
import { ask } from '../context.js';
import { Refusal } from '../refusal.js';

// getBilling's allowance is the plan's row of services/core/rules/plans.ts (spec 2.10 leaves its fields
// unshown): only the switch this check needs is read, and a platform that does not send it is
// left to refuse the upload itself, as it always has.
const StaticOnly = z.object({ staticOnly: z.boolean() });

/**
 * The plan, asked before anything is built or created (issue 29): a container demo on a plan of
 * static demos only is refused here, with the words of the platform's 402 `containers`, rather
 * than after the image build by startUpload, with a project made on the way. The hint leads to
 * what a builder can do today: a static demo, and the web app's Usage page, which shows the plan
 * (paid plans cannot be bought yet: getBilling's `paidPlans`).
 */
export async function checkPlanAllows(client: Client, apiUrl: string, manifest: Manifest): Promise<void> {
  if (manifest.kind !== 'container') return;
  const billing = await ask('reading the plan', () => client.call('getBilling'));
  const allowance = StaticOnly.safeParse(billing.allowance);
  if (!allowance.success || !allowance.data.staticOnly) return;
  throw new Refusal(
    `the ${billing.plan} plan allows static demos only: this container demo was not built, and nothing was created`,
    `deploy a static demo ("kind": "static" in pitch.json), or see your plan at ${apiUrl}/usage (paid plans are coming soon)`,
  );
}
