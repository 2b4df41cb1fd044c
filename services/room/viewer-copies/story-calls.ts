import type { Call } from '@demo-rooms/contract/runner';

// The calls a control or a story step makes on the viewer's copy, read from the live manifest
// (spec 2.1): `controls.reset`, a scenario's call with its body, a step's `run` list. The shell
// only names which; it can never make the copy call anything the builder did not declare.

type CallSpec = string | { call: string; body?: Record<string, unknown> };
type Manifest = {
  controls?: { reset?: string; scenarios?: { id: string; call: string; body?: Record<string, unknown> }[] };
  story?: { id: string; run?: CallSpec[] }[];
};

export type RunAsk = { reset: true } | { scenario: string } | { step: string };

/** The calls to make, in order; [] when the thing exists but runs nothing; null when it does not exist. */
export function storyCalls(manifest: Manifest, ask: RunAsk): Call[] | null {
  if ('reset' in ask) return manifest.controls?.reset ? [parseCall(manifest.controls.reset)] : null;
  if ('scenario' in ask) {
    const scenario = manifest.controls?.scenarios?.find((s) => s.id === ask.scenario);
    return scenario ? [parseCall(scenario.call, scenario.body)] : null;
  }
  const step = manifest.story?.find((s) => s.id === ask.step);
  if (!step) return null;
  return (step.run ?? []).map((c) => (typeof c === 'string' ? parseCall(c) : parseCall(c.call, c.body)));
}

/** `METHOD /path` (the manifest's call pattern, already checked when the build was made). */
export function parseCall(call: string, body?: Record<string, unknown>): Call {
  const at = call.indexOf(' ');
  return { method: call.slice(0, at) as Call['method'], path: call.slice(at + 1), ...(body ? { body } : {}) };
}
