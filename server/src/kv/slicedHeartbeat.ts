/**
 * Keeps many entries of the shared store alive: each entry is rewritten once per period, but a
 * slice of them at a time (one slice every period ÷ slices), so a few thousand open connections
 * never hold the event loop in one long burst. Rewriting them all at once held it for about 20 ms
 * per 1,000 connections, and every edit relayed meanwhile waited.
 *
 * An entry takes a slice when it starts (round robin, so slices stay even) and the beat is told
 * which slice is due; a caller that must refresh everything at once (Redis back after an outage)
 * simply ignores the slices.
 */
export class SlicedHeartbeat {
  private readonly slices: number;
  private readonly timer: NodeJS.Timeout;
  private assigned = 0;
  private due = 0;

  constructor(periodMs: number, slices: number, beat: (slice: number) => void) {
    this.slices = slices;
    this.timer = setInterval(() => {
      beat(this.due);
      this.due = (this.due + 1) % slices;
    }, periodMs / slices);
    this.timer.unref();
  }

  /** Whether a beat of `slice` refreshes an entry of `entrySlice`; a beat without a slice refreshes every entry. */
  static covers(slice: number | undefined, entrySlice: number): boolean {
    return slice === undefined || entrySlice === slice;
  }

  /** The slice for a new entry. */
  nextSlice(): number {
    const slice = this.assigned;
    this.assigned = (this.assigned + 1) % this.slices;
    return slice;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
