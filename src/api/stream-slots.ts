/**
 * How many event streams are open, in all and per client address
 * (client-address.ts), so that one client cannot hold every connection the
 * process can serve. In memory, per replica.
 */
export class StreamSlots {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly perAddress: number,
  ) {}

  /** Takes a slot for `address`: null when taken, else which limit is full. */
  take(address: string): null | "total" | "address" {
    if (this.total >= this.max) return "total";
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.perAddress) return "address";
    this.byAddress.set(address, mine + 1);
    this.total++;
    return null;
  }

  release(address: string): void {
    const mine = this.byAddress.get(address) ?? 0;
    if (mine === 0) return;
    if (mine === 1) this.byAddress.delete(address);
    else this.byAddress.set(address, mine - 1);
    this.total--;
  }

  get open(): number {
    return this.total;
  }
}
