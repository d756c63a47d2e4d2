/**
 * What the API answers, as data: the JSON bodies and their status codes.
 * Errors look like `{"error": {"code", "message"}}` (GitHub's own errors
 * are `{"message"}`; ours add a stable code to branch on). The shapes are
 * described in openapi.json, and the tests check every answer against it.
 */
import type { LeaseResult } from "../leasing/lease-result.js";
import type { Lease } from "../ledger/leases/lease-types.js";
import type { QueueEntry } from "../ledger/queue/queue-types.js";
import type { TenureView } from "../commands/reply.js";

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface HolderJson {
  login: string;
  id: number;
  instance: string | null;
}

export interface LeaseJson {
  repo: string;
  issue: number;
  holder: HolderJson | null;
  token: number | null;
  expires_at: string | null;
  /** How a live lease is held: by time (its expiry), by its holder's open pull requests, or by an exempt label. */
  held_by?: "time" | "pull" | "exempt";
  /** The holder's open pull requests that close the issue and hold the lease (`expires_at` is null meanwhile). */
  pulls?: number[];
}

/** GitHub's form: whole seconds, UTC, as the reply marker has it. Rounded down, so a client never thinks it holds longer than it does. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function leaseJson(repo: string, issue: number, lease: Lease | null): LeaseJson {
  if (!lease) return { repo, issue, holder: null, token: null, expires_at: null };
  return {
    repo,
    issue,
    holder: holderJson(lease),
    token: lease.token,
    expires_at: lease.expiresAt === null ? null : iso(lease.expiresAt),
    held_by: lease.heldBy.kind,
    ...(lease.heldBy.kind === "time" ? {} : { pulls: lease.heldBy.pulls }),
  };
}

export function errorAnswer(status: number, code: string, message: string, extra: { reason?: string; headers?: Record<string, string> } = {}): Answer {
  const error: Record<string, string> = { code, message };
  if (extra.reason !== undefined) error.reason = extra.reason;
  return { status, body: { error }, ...(extra.headers ? { headers: extra.headers } : {}) };
}

/** What an acquired claim's answer says of the issue, for the agent's next step: its title and its page. */
export interface IssueAbout {
  title?: string;
  url?: string;
}

/** Every answer that says "no such repository, or not for you": byte for byte the same, so that nobody learns which. */
export const NOT_FOUND: Answer = errorAnswer(404, "not_found", "Not Found");

/**
 * A claim, renewal or release as the API answers it: 200, 409 for `held` and
 * `not_holder`, 403 and 422 for the rules' refusals; 202 for a place in line
 * (`?wait=true`), with the lease it waits for.
 */
export function leaseAnswer(repo: string, issue: number, r: LeaseResult, about?: IssueAbout): Answer {
  switch (r.outcome) {
    case "queued":
      return {
        status: 202,
        body: { outcome: "queued", repo, issue, position: r.position, queued_until: iso(r.until), lease: leaseJson(repo, issue, r.lease) },
      };
    case "left_queue":
      return { status: 200, body: { outcome: "left_queue", repo, issue, lease: leaseJson(repo, issue, r.lease) } };
    case "released":
      // The first in line got it as it was released: who, with which token.
      return { status: 200, body: { outcome: "released", ...leaseJson(repo, issue, r.lease), ...(r.handoff ? { handed_to: handedJson(r.handoff) } : {}) } };
    case "acquired":
      return { status: 200, body: { outcome: r.outcome, ...leaseJson(repo, issue, r.lease), ...about } };
    case "renewed":
    case "status":
      return { status: 200, body: { outcome: r.outcome, ...leaseJson(repo, issue, r.lease) } };
    case "held":
    case "not_holder":
      return { status: 409, body: { outcome: r.outcome, ...leaseJson(repo, issue, r.lease) } };
    case "invalid":
      // A duration outside the repository's range is a bad duration; a broken config is the repository's, not the caller's.
      return r.rule === "ttl"
        ? errorAnswer(422, "invalid_ttl", r.reason, { reason: r.rule })
        : errorAnswer(403, "forbidden", r.reason, { reason: r.rule });
    case "forbidden":
      return errorAnswer(403, "forbidden", r.reason, { reason: r.rule });
  }
}

function handedJson(lease: Lease): { holder: HolderJson; token: number; expires_at: string | null } {
  return { holder: holderJson(lease), token: lease.token, expires_at: lease.expiresAt === null ? null : iso(lease.expiresAt) };
}

function holderJson(lease: Lease): HolderJson {
  return { login: lease.holder.login, id: lease.holder.id, instance: lease.holder.instance ?? null };
}

/** A place in line as `GET …/lease` shows it (`queue`). */
export function placeJson(p: QueueEntry): { login: string; id: number; instance: string | null; position: number; queued_at: string; until: string } {
  return { login: p.holder.login, id: p.holder.id, instance: p.holder.instance ?? null, position: p.position, queued_at: iso(p.queuedAt), until: iso(p.until) };
}

export function tenureJson(t: TenureView): { holder: HolderJson; token: number; from: string; to: string | null; ended: string } {
  return {
    holder: { login: t.holder, id: t.holderId ?? 0, instance: t.instance ?? null },
    token: t.token,
    from: iso(t.from),
    to: t.to === null ? null : iso(t.to),
    ended: t.ended,
  };
}
