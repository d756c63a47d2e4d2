/**
 * A drift-free stand-in for the Bottleneck groups through which
 * @octokit/plugin-throttling spaces requests (`group.key(id).schedule(options,
 * fn, ...args)` with `maxConcurrent: 1` and `minTime`), for runs scaled to a
 * few milliseconds per slot.
 *
 * Bottleneck measures `minTime` from when the timer actually fired, and a
 * timer fires up to a millisecond or so late: at production spacing (1 s)
 * that is 0.1%, at 2 ms it is half again as slow, and a scaled run would
 * measure Bottleneck's timer overhead instead of the pacing. Here each slot
 * is given its ideal start, `max(now, previous slot + minTime)`, when it is
 * scheduled, so the long-run rate is exactly one slot per `minTime`.
 */
import { performance } from "node:perf_hooks";

type Job = (...args: unknown[]) => unknown;

class Lane {
  private next = 0;

  constructor(private readonly minTime: number) {}

  schedule(...args: unknown[]): Promise<unknown> {
    const [options, fn, ...rest] = (typeof args[0] === "function" ? [{}, ...args] : args) as [{ weight?: number }, Job, ...unknown[]];
    const run = () => fn(...rest);
    // The plugin schedules its own retries with weight 0: they go first and use no slot.
    if (options.weight === 0) return Promise.resolve().then(run);
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.minTime;
    if (at <= now) return Promise.resolve().then(run);
    return new Promise((resolve, reject) => {
      setTimeout(() => Promise.resolve().then(run).then(resolve, reject), at - now);
    });
  }
}

/** One lane per key (the plugin keys by installation id), `minTime` ms between slot starts. */
export class PacerGroup {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly minTime: number) {}

  key(id = ""): Lane {
    let lane = this.lanes.get(id);
    if (!lane) this.lanes.set(id, (lane = new Lane(this.minTime)));
    return lane;
  }
}
