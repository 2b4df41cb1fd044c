// Visible seconds per app or page, counted as the visit goes and flushed every few seconds (the
// beat, beat.ts), so listVisits shows a visit under way and a quiet end lands near the viewer's
// last moment. Only visible time counts; a hidden room sends nothing, so a forgotten background
// tab goes quiet and its visit ends on the server (quietSeconds) at its last flush. Pure: the
// clock and the page's visibility are handed in. Part of shell.js.

export class VisitClock {
  private readonly pending: Record<string, number> = {};
  private readonly now: () => number;
  private readonly isVisible: () => boolean;
  private since: number;
  private visible: boolean;

  /** `now` in milliseconds (performance.now); `isVisible`: whether the page is in view now. */
  constructor(now: () => number, isVisible: () => boolean) {
    this.now = now;
    this.isVisible = isVisible;
    this.since = now();
    this.visible = isVisible();
  }

  /** Adds the time since the last call to `current`, if the room was visible all along. */
  account(current: string | null) {
    const now = this.now();
    if (current && this.visible) this.pending[current] = (this.pending[current] || 0) + (now - this.since) / 1000;
    this.since = now;
    this.visible = this.isVisible();
  }

  /** The whole seconds counted so far, by tab; the fractions stay for the next flush. */
  take(current: string | null): { time: Record<string, number> } {
    this.account(current);
    const time: Record<string, number> = {};
    for (const [key, seconds] of Object.entries(this.pending)) {
      const whole = Math.floor(seconds);
      if (whole > 0) {
        time[key] = whole;
        this.pending[key] = seconds - whole;
      }
    }
    return { time };
  }
}
