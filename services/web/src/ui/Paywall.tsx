import type { ReactNode } from 'react';
import { useOp } from '../api/hooks.js';
import { Link } from 'wouter';

// What the workspace's plan does not include, said the same way on every page (issue 47: a red
// refusal on one page, a yellow note on another, a whole form and then a refusal on a third). A 402
// of the API comes here through Refusal; a page that knows beforehand shows it instead of the form.

export function Paywall({ children, upgrade, alert }: { children: ReactNode; upgrade?: string; alert?: boolean }) {
  return (
    <div className="paywall" data-testid="paywall" role={alert ? 'alert' : undefined}>
      <p>
        <strong>Not on your plan.</strong> {children}
      </p>
      <p>
        {upgrade ? `The ${upgrade[0].toUpperCase()}${upgrade.slice(1)} plan includes it. ` : 'A paid plan includes it. '}
        <Link href="/usage">See your plan</Link>
      </p>
    </div>
  );
}

/**
 * How much of `what` the workspace's plan allows (a number, or a yes or no); `null` while the plan
 * is being read, undefined when it could not be or does not say.
 */
export function useAllowance(what: string): number | boolean | null | undefined {
  const billing = useOp('getBilling');
  if (billing.isPending) return null;
  const value = (billing.data?.allowance as Record<string, unknown> | undefined)?.[what];
  return typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/**
 * A form whose plan is still being read: it keeps its place on the page, unseen and out of reach
 * (inert, hidden), so that it neither shows for a moment before a paywall takes its place (a form
 * shown then taken away misleads) nor moves the page down when it appears (a layout shift).
 */
export function PlanPending({ children }: { children: ReactNode }) {
  return (
    <div className="plan-pending" aria-busy="true" inert>
      {children}
    </div>
  );
}
