/**
 * What a command answers, as data: the reply a handler decides (its op,
 * outcome, the lease it shows and why), before anything renders it. The
 * handlers (leasing/) write it, the ledger's answer completes it in the
 * outbox (github/reply-fill.ts) and github/render.ts turns it into the
 * comment; it lives here, below all three, beside what a command asks
 * (parse-command.ts).
 */
import type { HeldBy, Lease } from "../ledger/leases/lease-types.js";

/** `handoff`: a lease that ended passed to the first in line (its reply mentions them). */
export type Op = "claim" | "renew" | "release" | "expire" | "remind" | "status" | "help" | "handoff";
export type Outcome =
  | "acquired"
  | "held"
  | "renewed"
  | "not_holder"
  | "released"
  | "expired"
  | "reminded"
  | "invalid"
  | "forbidden"
  | "status"
  | "help"
  | "queued"
  | "left_queue";

/** A lease as a reply shows it. */
export interface LeaseView {
  holder: string;
  /** The holder's instance, when an API client named one. */
  instance?: string;
  token: number;
  acquiredAt: number;
  expiresAt: number | null;
  /** What keeps it, when not only time: the holder's open pull requests, or an exempt label. Absent: time. */
  heldBy?: HeldBy;
}

export interface TenureView {
  holder: string;
  /** The holder's account id (the API names it; replies do not). */
  holderId?: number;
  instance?: string;
  token: number;
  from: number;
  to: number | null;
  ended: string;
}

export interface Reply {
  op: Op;
  outcome: Outcome;
  issue: number;
  /** When the ledger decided: relative times are measured from here. */
  at: number;
  /** The command line as the user typed it; quoted safely, never as markdown. */
  command: string | null;
  /** Who gave the command (a login from GitHub). */
  actor: string | null;
  /** The issue's live lease after the command; for `released` and `expired`, the lease that ended. */
  lease: LeaseView | null;
  /** Whether `acquired` began a new tenure (false: the holder claimed again). */
  newTenure?: boolean;
  /** Text written by the app (never user text) explaining a refusal or what is accepted. */
  reason?: string;
  /** For `invalid` and `forbidden`: the rule that refused (the API's `reason`: `ttl`, `syntax`, `config`, `claimers`…). */
  rule?: string;
  /** Further command lines in the same comment that did not run. */
  ignored: number;
  /** Whether the reply should @-mention the holder (reminders, a lease released or given by someone else). */
  mentionHolder?: boolean;
  /** For `acquired`: the login of the maintainer who gave the lease to its holder (`/claim @user`). */
  assignedBy?: string;
  /** For `status`: the latest tenures, oldest first. */
  tenures?: TenureView[];
  /** The id of the comment that gave the command, so that a bot finds the reply to its own comment. */
  comment?: number;
  /** The command came through the HTTP API, not a comment (there is no comment to quote or name). */
  via?: "api";
  /** The API caller's note (user text: shown as a code span, which mentions nobody and breaks no markdown). */
  note?: string;
  /** For `help`: what this repository reads (render-help.ts). */
  help?: HelpView;
  /** For `queued`: the place in line (1 for the first) and until when it lasts; `waiter`, who waits, when not the actor (`/claim @user`). */
  position?: number;
  waiter?: string;
  queuedUntil?: number;
  /** For a handoff (`op: handoff`, `acquired`): the tenure that ended, and how. */
  previous?: { lease: LeaseView; ended: "released" | "expired" };
  /** For `status`: who waits in line, in order. */
  queue?: PlaceView[];
}

/** A place in line as a reply shows it. */
export interface PlaceView {
  holder: string;
  instance?: string;
  position: number;
}

export function leaseView(lease: Lease | null): LeaseView | null {
  if (!lease) return null;
  const view: LeaseView = { holder: lease.holder.login, token: lease.token, acquiredAt: lease.acquiredAt, expiresAt: lease.expiresAt };
  if (lease.heldBy.kind !== "time") view.heldBy = lease.heldBy;
  if (lease.holder.instance !== undefined) view.instance = lease.holder.instance;
  return view;
}

/** What `/help` shows of this repository's config (github/render-help.ts renders it; leasing/help.ts makes it). */
export interface HelpView {
  /** Each command that takes aliases, with its aliases (lower case, without the slash). */
  aliases: { claim: string[]; renew: string[]; release: string[]; lease: string[] };
  /** The app's slug when the mention form is read here. */
  mention: string | null;
  /** Milliseconds; null: open-ended. */
  defaultTtl: number | null;
  minTtl: number;
  maxTtl: number;
  reminderBefore: number | null;
  maxLeasesPerHolder: number;
  maxLeasesPerHolderInOrg: number;
  limitsByLabel: ReadonlyArray<{ label: string; limit: number }>;
  claimers: "anyone" | "collaborators" | "members";
  bots: boolean;
  authorFirst: number | null;
  exemptLabels: readonly string[];
  maxRepliesPerHour: number;
  /** `assignment: claims`: a maintainer's assignment in the sidebar gives a lease, unassigning the holder ends it. */
  assignmentClaims: boolean;
}
