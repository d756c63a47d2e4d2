/**
 * The holder's activity renews their lease, silently: their comment on the
 * issue, or their push, comment or review on a pull request that closes it
 * (`renew_on_activity`, default true). One ledger transaction, and only when
 * the actor holds a lease it could renew (a read says so first, before the
 * config is asked for); no effect is written, so nothing is posted or
 * labelled: zero writes to GitHub. Whose activity counts is decided by the
 * ledger (the holder's numeric id), so nobody else's comment, no other bot,
 * and none of the app's own comments (which are not even passed here:
 * `isOwnComment`) can renew anything. A comment that is a command runs as
 * the command instead.
 */
import type { ConfigResult } from "../config/config.js";
import type { Holder, Lease } from "../ledger/leases/lease-types.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import { activityPolicy } from "../config/work-policy.js";

export interface ActivityEvent {
  /** The delivery id, or one derived from it when another handler of the same delivery records the id itself. */
  delivery: string;
  repo: { id: number; owner: string; name: string };
  /** The issue or pull request the activity was on. */
  number: number;
  actor: Holder;
}

/** Returns the leases renewed (none for a redelivery). */
export async function handleActivity(
  ev: ActivityEvent,
  deps: { ledger: FollowLinks; now: number; config: () => Promise<ConfigResult> },
): Promise<Lease[]> {
  const key = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.number };
  const res = await deps.ledger.renewOnActivity(key, ev.actor, deps.now, {
    delivery: ev.delivery,
    policy: async () => {
      const config = await deps.config();
      return config.ok ? activityPolicy(config.config) : null;
    },
  });
  return res.duplicate === true ? [] : res.renewed;
}
