// A picture of what the viewer sees, within the page's budget: rendered (render-viewport.ts),
// encoded within the room's size (encode.ts), or why there is none. Part of frame-helper.js.
import type { CaptureAnswer } from '../frame-messages.js';
import { encodeFailure, stoppedRender } from './capture-rules.js';
import { encodeWithin } from './encode.js';
import { renderViewport } from './render-viewport.js';

async function capture(libraryUrl: string, maxBytes: number): Promise<CaptureAnswer> {
  // Violations of the page's own policy while rendering: its img-src or style-src may refuse
  // what the library makes (an SVG image as a data: URL, style elements), or its script-src
  // the library itself (a policy in a <meta> after the helper's tag).
  const violations: SecurityPolicyViolationEvent[] = [];
  const onViolation = (event: SecurityPolicyViolationEvent) => violations.push(event);
  document.addEventListener('securitypolicyviolation', onViolation, true);
  // Violation events are queued: let them arrive before judging.
  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  try {
    const canvas = await renderViewport(libraryUrl);
    await settle();
    if (stoppedRender(violations)) return { ok: false, note: 'blocked' };
    try {
      return await encodeWithin(canvas, maxBytes);
    } catch (err) {
      return { ok: false, note: encodeFailure(err) };
    }
  } catch {
    await settle();
    return { ok: false, note: violations.length ? 'blocked' : 'failed' };
  } finally {
    document.removeEventListener('securitypolicyviolation', onViolation, true);
  }
}

/** A capture's answer, 'failed' when it takes longer than `budget` ms: the frame never hangs the room. */
export function captureWithin(libraryUrl: string, maxBytes: number, budget: number): Promise<CaptureAnswer> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<CaptureAnswer>((resolve) => (timer = setTimeout(() => resolve({ ok: false, note: 'failed' }), budget)));
  return Promise.race([capture(libraryUrl, maxBytes).catch((): CaptureAnswer => ({ ok: false, note: 'failed' })), late]).finally(() =>
    clearTimeout(timer),
  );
}
