/**
 * `exempt_labels`: a lease on an issue carrying one of them does not expire.
 * A claim reads the issue's labels from its webhook; afterwards the labels
 * come and go by `labeled` / `unlabeled` events (issues and pull requests
 * alike), each one ledger transaction on the lease row. When the last exempt
 * label goes, the lease gets `default_ttl` from that moment (and a reminder
 * as usual). Nothing is posted and no label changes: the exempt label on the
 * issue shows it.
 */
import type { ConfigResult } from "../config/config.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import { carriesExemptLabel, resumeOf } from "../config/work-policy.js";

export interface LabelEvent {
  delivery: string;
  repo: { id: number; owner: string; name: string };
  issue: number;
  actor: Holder;
  /** The label added or removed. */
  label: string;
  added: boolean;
  /** The issue's labels as the event showed them. */
  labels: string[];
}

/** Returns whether the lease changed. */
export async function handleExemptLabel(
  ev: LabelEvent,
  deps: { ledger: LeaseReads & FollowLinks; now: number; config: () => Promise<ConfigResult> },
): Promise<boolean> {
  const { ledger, now } = deps;
  const key = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.issue };
  // Labels change all the time on issues nobody holds: those cost one read, and no config.
  if (!(await ledger.current(key, now))) return false;
  const config = await deps.config();
  if (!config.ok || !carriesExemptLabel([ev.label], config.config)) return false;
  // What the issue carries after the change, whether or not the event's list already shows it.
  const same = (l: string) => l.toLowerCase() === ev.label.toLowerCase();
  const after = ev.added ? [...ev.labels.filter((l) => !same(l)), ev.label] : ev.labels.filter((l) => !same(l));
  const res = await ledger.setExempt(key, ev.actor, carriesExemptLabel(after, config.config), now, {
    delivery: ev.delivery,
    resume: resumeOf(config.config),
  });
  return !res.duplicate && res.outcome !== "unchanged";
}
