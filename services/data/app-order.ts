// The room's app order (spec 4.2 orderApps): the apps named by the owner first, in their order,
// then the rest in the live manifest's order. Only the named apps are stored, so a later build
// that adds or drops apps still gets a whole order.

/** What orderApps stores: the named ids the live manifest knows, once each, in the order given; null when none. */
export function namedAppOrder(ids: readonly string[], manifestApps: readonly string[]): string[] | null {
  const known = new Set(manifestApps);
  const named = [...new Set(ids)].filter((id) => known.has(id));
  return named.length ? named : null;
}

/**
 * The order the room shows: null (the manifest's order) until the owner names one. Named apps
 * the live manifest no longer has are left out; without a live build the stored order stands.
 */
export function effectiveAppOrder(stored: readonly string[] | null, manifestApps: readonly string[] | null): string[] | null {
  if (stored === null) return null;
  if (manifestApps === null) return [...stored];
  const known = new Set(manifestApps);
  const named = stored.filter((id) => known.has(id));
  const rest = manifestApps.filter((id) => !named.includes(id));
  return [...named, ...rest];
}
