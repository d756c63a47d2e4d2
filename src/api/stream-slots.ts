/**
 * How many event streams are open, in all and per holder of a slot (an
 * anonymous client's address, client-address.ts, or a signed-in caller's
 * account), so that one client cannot hold every connection the process can
 * serve. In memory, per replica.
 */
export class StreamSlots {
  private readonly byKey = new Map<string, number>();
  private total = 0;

  constructor(private readonly max: number) {}

  /** Takes a slot for `key`, of which `limit` may be open: null when taken, else which limit is full. */
  take(key: string, limit: number): null | "total" | "key" {
    if (this.total >= this.max) return "total";
    const mine = this.byKey.get(key) ?? 0;
    if (mine >= limit) return "key";
    this.byKey.set(key, mine + 1);
    this.total++;
    return null;
  }

  release(key: string): void {
    const mine = this.byKey.get(key) ?? 0;
    if (mine === 0) return;
    if (mine === 1) this.byKey.delete(key);
    else this.byKey.set(key, mine - 1);
    this.total--;
  }

  get open(): number {
    return this.total;
  }
}
