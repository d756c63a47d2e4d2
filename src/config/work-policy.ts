/**
 * What the repository's config says about leases that follow the work, in
 * the terms the ledger takes (work-rules.ts has the rules themselves).
 */
import type { Config } from "./schema.js";
import type { ActivityPolicy, Resume } from "../ledger/work/work-types.js";

/**
 * What a lease gets when its work lets go of it (the holder's last open pull
 * request closed unmerged, or the exempt label went): `default_ttl` from
 * that moment, and the reminder `reminder_before` ahead of it as for a claim.
 */
export function resumeOf(config: Config): Resume {
  return { ttl: config.defaultTtl, remindBefore: config.reminderBefore };
}

/** Renewals by the holder's activity, or null when `renew_on_activity` is off. */
export function activityPolicy(config: Config): ActivityPolicy | null {
  return config.renewOnActivity ? { remindBefore: config.reminderBefore, fallbackTtl: config.defaultTtl } : null;
}

/** Whether `labels` (an issue's, as a webhook showed them) hold one of the `exempt_labels` (case-insensitive, as GitHub's label names). */
export function carriesExemptLabel(labels: readonly string[], config: Config): boolean {
  const exempt = new Set(config.exemptLabels.map((l) => l.toLowerCase()));
  return labels.some((l) => exempt.has(l.toLowerCase()));
}
