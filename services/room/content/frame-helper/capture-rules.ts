// The capture's rules that need no page: how long a picture may take, the size it must fit, and
// what a refusal by the page's own Content-Security-Policy looks like. Pure. Part of
// frame-helper.js. (The server's check of a copy's policy, whether the agent may run at all, is
// ../capture-policy.ts.)

/**
 * The longest a capture may take before it answers 'failed' (ms), told to the shell in the ack:
 * 8 s, and 1 s more for every 2,000 elements of the document (the parts in view are cloned with
 * their computed styles, and a large DOM takes longer to look through), 30 s at most.
 */
export const budgetMs = (elements: number) => Math.min(30000, 8000 + Math.round(elements / 2));

/** The most bytes a picture may have, as the room asked (anything not a positive number: no limit). */
export const maxBytesOf = (asked: unknown) => (Number(asked) > 0 ? Number(asked) : Infinity);

/** A violation's parts the rule reads. */
type Violation = Pick<SecurityPolicyViolationEvent, 'effectiveDirective' | 'blockedURI'>;

/**
 * Whether the page's policy stopped the render: its style-src refused the library's style
 * elements, or its img-src the SVG image the library draws through (a data: URL), which draws
 * nothing at all (the picture would be blank).
 */
export const stoppedRender = (violations: Violation[]) =>
  violations.some(
    (v) => /^style-src/.test(v.effectiveDirective) || (/^img-src/.test(v.effectiveDirective) && /^data\b/.test(v.blockedURI)),
  );

/** Why encoding failed: 'tainted' for a canvas that may not be read (a SecurityError), else 'failed'. */
export const encodeFailure = (err: unknown) => ((err as { name?: unknown } | null)?.name === 'SecurityError' ? 'tainted' : 'failed');
