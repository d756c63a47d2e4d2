/**
 * The leases' values: an issue's key, its holder, a lease, its history, and
 * what each lease operation answers (what they take, and the roles callers
 * use, are lease-roles.ts's). It knows nothing of GitHub.
 *
 * Time is a parameter (`now`, milliseconds since the epoch) of every call and
 * is never read inside, so that tests drive the clock. Every call is one
 * transaction. Rows are a per-issue tenure ledger and are never deleted: the
 * fencing token of an issue only ever goes up.
 */

/** A lease is keyed by the repository's numeric id (stable across renames and transfers) and the issue number. */
export interface IssueKey {
  repoId: number;
  /** `owner/name`, kept for display only. */
  repo: string;
  issue: number;
}

/**
 * The GitHub account holding a lease: its numeric id is the identity, the
 * login is for display. `instance` is a short name an API client gives, so
 * that workers of one account exclude each other: two instances of one
 * account are two holders; a comment's holder has none (absent, never null).
 */
export interface Holder {
  id: number;
  login: string;
  instance?: string;
}

/**
 * What keeps a live lease, besides its holder's word:
 *
 * - `time`: it ends at `expiresAt` (never, when that is null: open-ended).
 * - `pull`: open pull requests by the holder that close the issue (their
 *   numbers, ascending); it does not expire while any is open, and
 *   `expiresAt` is null. When the last one closes unmerged it gets the
 *   repository's `default_ttl` from that moment.
 * - `exempt`: the issue carries one of the repository's `exempt_labels`; it
 *   does not expire (`expiresAt` null) until the label goes, then gets
 *   `default_ttl` from that moment. `pulls` are the holder's open pull
 *   requests as above (often none): the lease is also in review when there are some.
 */
export type HeldBy = { kind: "time" } | { kind: "pull"; pulls: number[] } | { kind: "exempt"; pulls: number[] };

/** A live lease as it stands. */
export interface Lease {
  repoId: number;
  repo: string;
  issue: number;
  holder: Holder;
  token: number;
  acquiredAt: number;
  /** null: open-ended, or held by its work (see `heldBy`). */
  expiresAt: number | null;
  /** What keeps it: time, the holder's open pull requests, or an exempt label. */
  heldBy: HeldBy;
}

/** A time-to-live in milliseconds; null makes the lease open-ended. */
export type Ttl = number | null;

export type AcquireResult =
  | { outcome: "acquired"; lease: Lease; /** false when the caller already held it */ newTenure: boolean }
  /**
   * `handedOver`: the issue's lease had run out before the sweep ended it,
   * and this transaction handed it to the first in line (`lease`, a new
   * tenure): the tenure that expired.
   */
  | { outcome: "held"; lease: Lease; handedOver?: Lease }
  /** The issue is held and the caller asked to wait (`AcquireOptions.queue`): their place in line (queue-types.ts), 1 for the first. */
  | { outcome: "queued"; lease: Lease; position: number; until: number; handedOver?: Lease }
  /** `scope`: which limit the holder is at (absent: `maxPerHolder`, the repository's). */
  | { outcome: "limit"; limit: number; held: Lease[]; scope?: LimitScope };

/** Which claim limit a refused acquire met. */
export type LimitScope = { kind: "repo" } | { kind: "label"; label: string } | { kind: "org" };

export type RenewResult =
  | { outcome: "renewed"; lease: Lease }
  | { outcome: "not_holder"; lease: Lease | null };

export type ReleaseResult =
  /**
   * `lease` is the tenure that ended, or null when there was nothing to
   * release; `handoff`: the new tenure of the first in line, who got the
   * lease in the same transaction (queue-plans.ts).
   */
  | { outcome: "released"; lease: Lease | null; handoff?: Lease }
  | { outcome: "not_holder"; lease: Lease | null }
  /** The caller held nothing but had a place in line: they left it (`lease`: the live one). */
  | { outcome: "left_queue"; lease: Lease | null };

/** A force release also answers `stale`: the event that asked for it was about an older tenure (`lease` is the live one). */
export type ForceReleaseResult = ReleaseResult | { outcome: "stale"; lease: Lease | null };

/** A reply or other note that changes no lease (an invalid command, a refusal). */
export interface NoteResult {
  outcome: "noted";
  lease: Lease | null;
  /** What the caller asked to be kept with the note (`NoteOptions.detail`): a duplicate returns it too. */
  detail?: Record<string, string>;
}

/** `handoff`: as a release's, the first in line got the lease as it expired. */
export type ExpireResult = { outcome: "expired"; lease: Lease; handoff?: Lease } | { outcome: "stale"; lease: Lease | null };
export type RemindResult = { outcome: "reminded"; lease: Lease } | { outcome: "stale"; lease: Lease | null };

export type LedgerResult = AcquireResult | RenewResult | ForceReleaseResult | NoteResult | ExpireResult | RemindResult;

/** What an operation returns: its outcome, and whether the delivery had been applied before. */
export type Applied<R> = R & { duplicate: boolean };

/** The term a reminder is for: a tenure's token and the expiry it had when the reminder was decided. */
export interface Term {
  token: number;
  expiresAt: number | null;
}

/**
 * `follow`: the lease followed its work, with no command (work/):
 * outcome `suspended` (a pull request or an exempt label now holds it),
 * `resumed` (time holds it again), `linked` (its pull requests changed while
 * it stays held), `renewed` (the holder's activity).
 *
 * `restore`: the operator raised the token floor, restoring a backup
 * (`issue-leases restore`, outcome `restored`) or after restoring one with the
 * database's own tools (`issue-leases token-floor`, outcome `floor_raised`).
 */
export type HistoryOp = "acquire" | "renew" | "release" | "force_release" | "expire" | "remind" | "note" | "restore" | "follow" | "handoff";

export interface HistoryEntry {
  id: number;
  repoId: number;
  repo: string;
  issue: number;
  op: HistoryOp;
  outcome: string;
  actor: Holder | null;
  holder: Holder | null;
  token: number | null;
  expiresAt: number | null;
  at: number;
  delivery: string | null;
}

/** A lease whose expiry has passed and that the sweeper has not yet ended. */
export type ExpiredLease = Lease;

/** A holder read back from a row: a NULL instance is no instance (absent, as a comment's holder). */
export function holderOf(id: number, login: string, instance: string | null | undefined): Holder {
  return instance == null ? { id, login } : { id, login, instance };
}
