/**
 * Renamed accounts. A lease is held by a numeric account id; its login is
 * kept for labels, replies and mentions. GitHub lets people rename their
 * account, and the old login may then go to someone else: a reminder to
 * `@oldname` would reach a stranger. So every event's accounts (a comment's
 * author, an event's sender, a pull request's author) are checked against
 * the ledger, and a holder's new login follows them to their live leases,
 * with a reflect effect each so that the `claimed-by:` label follows too.
 *
 * Every webhook passes through here, so a login seen before costs nothing:
 * the (repository, account) -> login pairs already checked are remembered in
 * this process, and the ledger is asked (one indexed read, no write) only
 * for a pair not seen, or seen with another login.
 */
import { BoundedMap } from "../github/bounded-map.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { LeaseBook } from "../ledger/leases/lease-roles.js";
import { reflectEffect } from "../outbox/effects.js";

/** Pairs remembered before the memory starts over: a bound, not a tuning knob. */
const REMEMBERED = 50_000;

export class HolderLogins {
  private readonly checked = new BoundedMap<string>(REMEMBERED);
  /** Checks in flight, so that two handlers of one delivery seeing the same account ask the ledger once. */
  private readonly asking = new Map<string, Promise<void>>();

  constructor(
    private readonly o: { ledger: LeaseBook; clock: () => number; onRenamed: (count: number) => void },
  ) {}

  /** `account` as an event in repository `repoId` shows it. */
  async seen(repoId: number, account: Holder): Promise<void> {
    const pair = `${repoId}/${account.id}`;
    if (this.checked.get(pair) === account.login) return;
    const ask = `${pair}/${account.login}`;
    let pending = this.asking.get(ask);
    if (!pending) {
      pending = this.check(repoId, pair, account).finally(() => this.asking.delete(ask));
      this.asking.set(ask, pending);
    }
    return pending;
  }

  private async check(repoId: number, pair: string, account: Holder): Promise<void> {
    // Each lease's labels follow, in its repository; one never remembered has no installation to write with, and catches up at its next event.
    const renamed = await this.o.ledger.renameHolder(repoId, account, this.o.clock(), { effect: reflectEffect(0, "/", { reconcile: true, reply: null }) });
    this.checked.set(pair, account.login);
    if (renamed.length > 0) this.o.onRenamed(renamed.length);
  }
}
