/**
 * A bounded cache whose entries live `ttlMs`: what the API remembers of
 * GitHub's answers (who a token is, which repositories it sees, where the
 * app is installed), so that a client's heartbeat costs no GitHub call. The
 * least recently stored entry goes first when it is full.
 */
export class TtlCache<V> {
  /** A Map iterates in insertion order: re-inserting on store makes the first key the oldest. */
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly clock: () => number,
  ) {}

  /** The value stored under `key` within the last `ttlMs`, or undefined. */
  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (this.clock() - hit.at < this.ttlMs) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, at = this.clock()): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /**
   * The cached value, or `load()`'s, stored: concurrent callers for one key
   * share one load. A load that throws is not stored.
   */
  async through(key: string, load: () => Promise<V>, loading: Map<string, Promise<V>>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    let pending = loading.get(key);
    if (!pending) {
      const at = this.clock();
      pending = load().then((value) => {
        this.set(key, value, at);
        return value;
      });
      loading.set(key, pending);
      void pending.finally(() => loading.delete(key)).catch(() => undefined);
    }
    return pending;
  }

  get size(): number {
    return this.entries.size;
  }
}
