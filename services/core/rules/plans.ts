import { Refusal } from './errors.js';

// The plans of spec section 8, in one table. Every feature reads its limits from here, and every
// plan refusal is the 402 of spec section 7. docs/plans.md shows the same table for people.

export const PlanName = ['free', 'solo', 'pro', 'studio', 'team', 'agency', 'organisation', 'enterprise'] as const;
export type PlanName = (typeof PlanName)[number];

export interface PlanNumbers {
  /** Projects a workspace may hold (not deleted). */
  projects: number;
  /** createBuild calls in any rolling 24 hours, per workspace. */
  deploys: number;
  /** Open links per project (revoked and expired ones do not count). */
  linksPerProject: number;
  /** Viewer-hours a UTC month, per workspace. */
  viewerHours: number;
  seats: number;
  /** Viewers at once in one room. */
  concurrentViewers: number;
  /** Container copies running at once, per workspace. */
  containerCopies: number;
  /** Warm copies kept ahead of viewers, per live container build. */
  warmCopies: number;
  /** Product-feedback notes a person may send an hour. */
  feedbackPerHour: number;
  /** Webhook endpoints a workspace may register (issue 34). */
  webhookEndpoints: number;
  /**
   * Bytes a workspace may keep in the image registry (issue 45): pushed layers, configs and
   * manifests, each distinct blob once, and uploads not yet finished. 0: no pushes at all.
   */
  registryBytes: number;
}

export interface PlanSwitches {
  staticOnly: boolean;
  privateLinks: boolean;
  pipeline: boolean;
  fullAnalytics: boolean;
  ownBranding: boolean;
  visitListing: boolean;
  chooseNextSteps: boolean;
}

export type Plan = { name: PlanName; monthlyUsd: number | null } & PlanNumbers & PlanSwitches;

/** A gibibyte (bytes). */
const GiB = 1024 ** 3;

const paid: PlanSwitches = {
  staticOnly: false,
  privateLinks: true,
  pipeline: true,
  fullAnalytics: true,
  ownBranding: false,
  visitListing: true,
  chooseNextSteps: true,
};

// Listed cheapest first: `upgrade` in a 402 is the first plan after the current one that allows more.
export const plans: readonly Plan[] = [
  {
    name: 'free',
    monthlyUsd: 0,
    projects: 3,
    deploys: 20,
    linksPerProject: 0,
    viewerHours: 10,
    seats: 1,
    concurrentViewers: 3,
    containerCopies: 0,
    warmCopies: 0,
    feedbackPerHour: 10,
    webhookEndpoints: 0,
    registryBytes: 0,
    staticOnly: true,
    privateLinks: false,
    pipeline: false,
    fullAnalytics: false,
    ownBranding: false,
    visitListing: false,
    chooseNextSteps: false,
  },
  {
    name: 'solo',
    monthlyUsd: 19,
    projects: 5,
    deploys: 50,
    linksPerProject: 25,
    viewerHours: 50,
    seats: 1,
    concurrentViewers: 5,
    containerCopies: 3,
    warmCopies: 1,
    feedbackPerHour: 20,
    webhookEndpoints: 2,
    registryBytes: 5 * GiB,
    ...paid,
  },
  {
    name: 'pro',
    monthlyUsd: 39,
    projects: 15,
    deploys: 100,
    linksPerProject: 100,
    viewerHours: 200,
    seats: 1,
    concurrentViewers: 10,
    containerCopies: 10,
    warmCopies: 1,
    feedbackPerHour: 20,
    webhookEndpoints: 5,
    registryBytes: 10 * GiB,
    ...paid,
    ownBranding: true,
  },
  {
    name: 'studio',
    monthlyUsd: 79,
    projects: 30,
    deploys: 200,
    linksPerProject: 250,
    viewerHours: 500,
    seats: 3,
    concurrentViewers: 15,
    containerCopies: 15,
    warmCopies: 2,
    feedbackPerHour: 30,
    webhookEndpoints: 10,
    registryBytes: 20 * GiB,
    ...paid,
    ownBranding: true,
  },
  {
    name: 'team',
    monthlyUsd: 149,
    projects: 50,
    deploys: 300,
    linksPerProject: 500,
    viewerHours: 1000,
    seats: 10,
    concurrentViewers: 20,
    containerCopies: 25,
    warmCopies: 2,
    feedbackPerHour: 30,
    webhookEndpoints: 20,
    registryBytes: 40 * GiB,
    ...paid,
    ownBranding: true,
  },
  {
    name: 'agency',
    monthlyUsd: 299,
    projects: 100,
    deploys: 500,
    linksPerProject: 1000,
    viewerHours: 2500,
    seats: 20,
    concurrentViewers: 30,
    containerCopies: 40,
    warmCopies: 3,
    feedbackPerHour: 40,
    webhookEndpoints: 30,
    registryBytes: 80 * GiB,
    ...paid,
    ownBranding: true,
  },
  {
    name: 'organisation',
    monthlyUsd: 599,
    projects: 250,
    deploys: 1000,
    linksPerProject: 2500,
    viewerHours: 6000,
    seats: 50,
    concurrentViewers: 50,
    containerCopies: 80,
    warmCopies: 4,
    feedbackPerHour: 60,
    webhookEndpoints: 50,
    registryBytes: 160 * GiB,
    ...paid,
    ownBranding: true,
  },
  {
    name: 'enterprise',
    monthlyUsd: null,
    projects: 1000,
    deploys: 5000,
    linksPerProject: 10000,
    viewerHours: 50000,
    seats: 500,
    concurrentViewers: 200,
    containerCopies: 400,
    warmCopies: 8,
    feedbackPerHour: 120,
    webhookEndpoints: 100,
    registryBytes: 500 * GiB,
    ...paid,
    ownBranding: true,
  },
];

/**
 * Of a plan's month, the viewer-hours its public rooms (/p/<slug>) may use (issue 28): a fifth
 * of the month, counted apart from the private links' hours, so visits anyone can make without a
 * link can never spend the hours that keep private links open. A plan without private links has
 * nothing to keep: its public rooms have the whole month.
 */
export const publicHoursShare = 0.2;

export function publicViewerHours(plan: Plan): number {
  return plan.privateLinks ? plan.viewerHours * publicHoursShare : plan.viewerHours;
}

export function planOf(name: string): Plan {
  const plan = plans.find((p) => p.name === name);
  if (!plan) throw new Error(`unknown plan ${name}`);
  return plan;
}

export type LimitName =
  | 'projects'
  | 'deploys'
  | 'links'
  | 'viewerHours'
  | 'analytics'
  | 'pipeline'
  | 'containers'
  | 'webhooks'
  | 'registry';

const allows: Record<LimitName, (p: Plan) => number> = {
  projects: (p) => p.projects,
  deploys: (p) => p.deploys,
  links: (p) => (p.privateLinks ? p.linksPerProject : 0),
  viewerHours: (p) => p.viewerHours,
  analytics: (p) => (p.fullAnalytics ? 1 : 0),
  pipeline: (p) => (p.pipeline ? 1 : 0),
  containers: (p) => (p.staticOnly ? 0 : p.containerCopies),
  webhooks: (p) => p.webhookEndpoints,
  registry: (p) => p.registryBytes,
};

const limitText: Record<LimitName, string> = {
  projects: 'Your plan holds no more projects.',
  deploys: 'Your plan allows no more deploys in 24 hours.',
  links: 'Your plan allows no more private links for this project.',
  viewerHours: "This month's viewer-hours are used.",
  analytics: 'Your plan shows totals only.',
  pipeline: 'Your plan has no pipeline.',
  containers: 'Your plan allows static demos only.',
  webhooks: 'Your plan allows no more webhook endpoints.',
  registry: "Your plan's image storage is full.",
};

/** The words where the plan allows none at all, not merely no more. */
const noneText: Partial<Record<LimitName, string>> = {
  links: 'Your plan has no private links.',
};

/** What a plan allows of a limit (0: none; `containers`: the copies it runs at once). */
export function allowance(limit: LimitName, plan: Plan): number {
  return allows[limit](plan);
}

/** The cheapest plan above `current` that allows more of `limit`, or null when none does. */
export function upgradeFor(limit: LimitName, current: PlanName): PlanName | null {
  const from = plans.findIndex((p) => p.name === current);
  const now = allows[limit](plans[from]);
  const better = plans.slice(from + 1).find((p) => allows[limit](p) > now);
  return better?.name ?? null;
}

/** The 402 of spec section 7 for `limit` on `plan`. */
export function planLimit(limit: LimitName, plan: PlanName): Refusal {
  const none = allows[limit](planOf(plan)) === 0 ? noneText[limit] : undefined;
  return new Refusal(402, none ?? limitText[limit], 'limit', { limit, plan, upgrade: upgradeFor(limit, plan) });
}

/** The cheapest plan with `feature` switched on (listed cheapest first), or null when none has it. */
export function firstPlanWith(feature: keyof PlanSwitches): PlanName | null {
  return plans.find((p) => p[feature])?.name ?? null;
}
