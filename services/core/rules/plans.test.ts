import { describe, expect, it } from 'vitest';
import { planLimit, plans, upgradeFor } from './plans.js';

describe('plans', () => {
  it('lists the eight plans of the spec, cheapest first', () => {
    expect(plans.map((p) => p.name).sort()).toEqual(['agency', 'enterprise', 'free', 'organisation', 'pro', 'solo', 'studio', 'team']);
    const prices = plans.map((p) => p.monthlyUsd ?? Infinity);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
  });

  it('keeps Free to static demos, no private links, no pipeline and totals only', () => {
    expect(plans[0]).toMatchObject({
      name: 'free',
      staticOnly: true,
      privateLinks: false,
      pipeline: false,
      fullAnalytics: false,
      containerCopies: 0,
    });
  });

  it('allows visit listing from Solo up', () => {
    expect(plans.filter((p) => p.visitListing).map((p) => p.name)).toEqual(plans.slice(1).map((p) => p.name));
  });

  it('never lets a dearer plan allow less', () => {
    for (const key of ['projects', 'deploys', 'linksPerProject', 'viewerHours', 'seats', 'concurrentViewers', 'containerCopies'] as const) {
      for (let i = 1; i < plans.length; i++) expect(plans[i][key]).toBeGreaterThanOrEqual(plans[i - 1][key]);
    }
  });

  it('names the cheapest plan that allows more, or null', () => {
    expect(upgradeFor('links', 'free')).toBe('solo');
    expect(upgradeFor('containers', 'free')).toBe('solo');
    expect(upgradeFor('projects', 'solo')).toBe('pro');
    expect(upgradeFor('projects', 'enterprise')).toBeNull();
    expect(upgradeFor('pipeline', 'solo')).toBeNull();
  });

  it('makes the 402 body of spec section 7', () => {
    const r = planLimit('pipeline', 'free');
    expect(r.status).toBe(402);
    expect(r.body()).toEqual({ error: expect.any(String), reason: 'limit', limit: 'pipeline', plan: 'free', upgrade: 'solo' });
  });
});
