import type { Call, CallOutcome } from '@demo-rooms/contract/runner';

// Controls and story calls (spec 2.1): `controls.reset`, a scenario's call with its body, a
// story step's `run` calls. The room sends them; the runner makes them on the viewer's own copy,
// in order, and reports each outcome. A call that fails (no answer, or not 2xx) stops the rest:
// later calls usually build on earlier ones (reset, then seed), and the step shows what failed.

const BODY_SHOWN = 2_000;

export async function runCalls(target: { host: string; port: number }, calls: Call[], timeoutMs: number): Promise<CallOutcome[]> {
  const base = `http://${target.host}:${target.port}`;
  const out: CallOutcome[] = [];
  let failed = false;
  for (const c of calls) {
    const name = `${c.method} ${c.path}`;
    if (failed) {
      out.push({ call: name, ok: false, status: null, ms: 0, error: 'skipped' });
      continue;
    }
    const url = new URL(c.path, base);
    const started = Date.now();
    try {
      if (url.origin !== base) throw new Error('not a path on the copy');
      const res = await fetch(url, {
        method: c.method,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: c.body ? { 'content-type': 'application/json' } : {},
        body: c.body && c.method !== 'GET' ? JSON.stringify(c.body) : undefined,
      });
      const text = await res.text();
      const ok = res.status >= 200 && res.status < 300;
      out.push({ call: name, ok, status: res.status, ms: Date.now() - started, body: text.slice(0, BODY_SHOWN) });
      failed = !ok;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      out.push({
        call: name,
        ok: false,
        status: null,
        ms: Date.now() - started,
        error: e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.message),
      });
      failed = true;
    }
  }
  return out;
}
