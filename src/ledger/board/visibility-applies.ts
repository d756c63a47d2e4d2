/**
 * Whether a repository's private flag, as one webhook payload shows it,
 * replaces the one stored. Deliveries come in any order (retries,
 * redeliveries, replicas), so a late event from before a repository was made
 * private must not make it public again. Each payload's repository carries
 * `updated_at`, which GitHub moves when the visibility changes (its own
 * `repository.privatized` and `publicized` examples are a second apart), so
 * the flag is stored with that time and an older one is ignored. At the same
 * time, private wins: the safe side, when GitHub's seconds cannot tell two
 * payloads apart; unless the payload is the report of the change itself.
 * Pure: both backends call it inside their transaction.
 */

export interface StoredVisibility {
  /** null: never seen in a webhook, or forgotten (the installation went): counted as private. */
  private: boolean | null;
  /** The time of the payload that set it; null for a flag stored before times were. */
  at: number | null;
}

export interface SeenVisibility {
  private: boolean;
  /** null: the payload gives no time (a repository added to an installation). */
  at: number | null;
  /** The payload reports the flag (privatized, publicized, added to an installation). */
  reportsChange: boolean;
}

export function visibilityApplies(before: StoredVisibility | undefined, seen: SeenVisibility): boolean {
  if (!before || before.at === null) return true;
  if (seen.at === null) return seen.reportsChange || seen.private;
  if (seen.at !== before.at) return seen.at > before.at;
  return seen.private || seen.reportsChange;
}

/** The time stored with a flag that applied: never earlier than the one before (an untimed report keeps it). */
export function visibilityTime(before: StoredVisibility | undefined, seen: SeenVisibility): number | null {
  if (seen.at === null) return before?.at ?? null;
  return before?.at != null && before.at > seen.at ? before.at : seen.at;
}
