/**
 * What a tool answers: a sentence an agent can act on (the text) and the
 * same facts as data (`structuredContent`, which the tool's output schema
 * describes; only its fields, since a client checks them strictly). Every
 * refusal is a result with `isError: true`, never a protocol error: held
 * by someone (who, until when, the place a wait would get), nothing ready
 * (how many matched, how many held), not the holder, refused by the
 * repository's rules, not found, rate limited (retry after N s), the
 * service unreachable (where it was looked for), bad input (which field).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  describeHolder,
  LeaseApiError,
  type LeaseAnswer,
  LeaseHeldError,
  LeaseNotHolderError,
  LeaseRefusedError,
  LeaseUnavailableError,
  NothingReadyError,
  ordinal,
  type QueuedAnswer,
} from "@issue-leases/client";
import type { LostLease } from "./tool-schemas.js";

/** Where the session's calls go, for the "unreachable" refusal: `ISSUE_LEASES_URL (https://…)`, or the app's own server. */
export interface ServiceName {
  where: string;
}

export type Structured = Record<string, unknown>;

/** A result with what was lost since the last one first, then `text`. */
export function answer(text: string, data: Structured, lost: LostLease[]): CallToolResult {
  const first = lost.map((l) => `LEASE LOST: ${l.message}. Stop working on ${l.repo}#${l.issue}: do not push or merge with token ${l.token ?? "?"}.`);
  return {
    content: [...first, text].map((t) => ({ type: "text" as const, text: t })),
    structuredContent: lost.length > 0 ? { ...data, lost_leases: lost } : data,
  };
}

/** A refusal: `isError`, the lost leases first as for any answer. */
export function refusal(text: string, lost: LostLease[]): CallToolResult {
  const first = lost.map((l) => `LEASE LOST: ${l.message}. Stop working on ${l.repo}#${l.issue}.`);
  return { content: [...first, text].map((t) => ({ type: "text" as const, text: t })), isError: true };
}

/** The commit trailer (and pull request line) that names the tenure: the app's lease check reads it. */
export function trailer(lease: Pick<LeaseAnswer, "token" | "issue">): string | undefined {
  return lease.token === null ? undefined : `Lease-Token: ${lease.token} #${lease.issue}`;
}

export function leaseData(a: LeaseAnswer, extra: Structured = {}): Structured {
  const data: Structured = {
    outcome: a.outcome,
    repo: a.repo,
    issue: a.issue,
    holder: a.holder ? { login: a.holder.login, id: a.holder.id, instance: a.holder.instance ?? null } : null,
    token: a.token,
    expires_at: a.expires_at,
  };
  if (a.title !== undefined) data.title = a.title;
  if (a.url !== undefined) data.url = a.url;
  if (a.handed_to) {
    const h = a.handed_to;
    data.handed_to = { holder: { login: h.holder.login, id: h.holder.id, instance: h.holder.instance ?? null }, token: h.token, expires_at: h.expires_at };
  }
  return { ...data, ...extra };
}

/** The answer to a claim that took the lease (also `next`'s): what the agent needs for its next step. */
export function acquiredText(a: LeaseAnswer, renewed: boolean): string {
  const title = a.title ? ` "${a.title}"` : "";
  const until = a.expires_at ? ` until ${a.expires_at}` : " (open-ended while a pull request or an exempt label holds it)";
  const lines = [`You hold ${a.repo}#${a.issue}${title}: token ${a.token}${until}.`];
  if (a.url) lines.push(`Issue: ${a.url}`);
  const line = trailer(a);
  if (line) lines.push(`Put this line in each commit message and in the pull request's body: ${line}`);
  lines.push(
    renewed
      ? "This session renews the lease while it is open; call release_lease when the work is done (closing the session releases it too)."
      : "Renew it with renew_lease before it expires, and release it with release_lease when the work is done.",
  );
  return lines.join("\n");
}

export function queuedText(q: QueuedAnswer): string {
  return (
    `${q.repo}#${q.issue} is held by ${describeHolder(q.lease)}. You are ${ordinal(q.position)} in line; this session keeps the place ` +
    `(it lapses at ${q.queued_until} without it) and takes the lease when it passes to you: you will be notified, and lease_status shows it.`
  );
}

export function releasedText(a: LeaseAnswer): string {
  if (a.outcome === "left_queue") return `You left the line for ${a.repo}#${a.issue}.`;
  if (a.token === null) return `You held nothing on ${a.repo}#${a.issue}: nothing to release.`;
  const handed = a.handed_to ? ` It passed to ${a.handed_to.holder.login}, first in line (token ${a.handed_to.token}).` : "";
  return `Released ${a.repo}#${a.issue} (token ${a.token}).${handed}`;
}

/**
 * The refusal for an error of a call: the client's typed errors, its input
 * checks (TypeError), or anything else (an internal error, its message).
 */
export function refusalText(error: unknown, service: ServiceName, held?: { waiting: number }): string {
  if (error instanceof LeaseHeldError) {
    const place = held === undefined ? "" : ` ${held.waiting} ${held.waiting === 1 ? "is" : "are"} waiting in line; with wait: true you would be ${ordinal(held.waiting + 1)}.`;
    return `${error.lease.repo}#${error.lease.issue} is held by ${describeHolder(error.lease)}.${place} Call claim_issue with wait: true to queue for it, or claim_next_issue for another issue.`;
  }
  if (error instanceof LeaseNotHolderError) {
    const now = error.lease.holder ? `it is held by ${describeHolder(error.lease)}` : "it is free";
    return `You do not hold ${error.lease.repo}#${error.lease.issue}: ${now}. Claim it with claim_issue before working on it.`;
  }
  if (error instanceof NothingReadyError) {
    return error.matched === 0
      ? "No open issue matches these filters. Try other filters (or none), or another repository."
      : `No issue is ready: ${error.matched} open issue${error.matched === 1 ? "" : "s"} match these filters and ${error.held} of them ${error.held === 1 ? "is" : "are"} held or have someone in line. Try again later, or with other filters.`;
  }
  if (error instanceof LeaseRefusedError) {
    return `The app refused: ${error.message}${error.reason ? ` (rule: ${error.reason})` : ""}. Nothing was changed.`;
  }
  if (error instanceof LeaseUnavailableError) return unavailableText(error, service);
  if (error instanceof LeaseApiError) {
    if (error.status === 404) {
      return "Not found: the repository or issue does not exist, your GitHub token cannot see it, or the app is not installed on its repository. Check the name.";
    }
    if (error.status === 401) return "GitHub does not accept the token this server was given: give it a valid GitHub token (GITHUB_TOKEN or GH_TOKEN).";
    if (error.status === 422) return `The app refused the input: ${error.message} Fix it and call again.`;
    return `The app answered HTTP ${error.status} (${error.code}): ${error.message}`;
  }
  if (error instanceof TypeError) return `Bad input: ${error.message}.`;
  return `Internal error: ${error instanceof Error ? error.message : String(error)}. Nothing was changed unless lease_status says so.`;
}

function unavailableText(error: LeaseUnavailableError, service: ServiceName): string {
  const wait = error.retryAfterMs === null ? null : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
  const retry = wait === null ? "try again in a minute" : `try again in ${wait} s`;
  if (error.status === 429) return `Rate limited by the app: ${retry}. Nothing was changed.`;
  if (error.status === 503 && error.code === "inventory_filling") return `The app is still reading this repository's open issues: ${retry}.`;
  if (error.status === 502) return `GitHub did not answer the app: ${retry}. Nothing was changed.`;
  if (error.status !== null) return `The app answered HTTP ${error.status}${error.code ? ` (${error.code})` : ""} on every attempt: ${retry}.`;
  const cause = error.cause instanceof Error ? causeText(error.cause) : "no answer";
  return `Nothing answered at ${service.where} (${cause}, after ${error.attempts} attempts): is the issue-leases app running there, and is the URL right? Nothing was changed.`;
}

/** The system's reason (ECONNREFUSED, ENOTFOUND): the error's own code, or, from Node's fetch ("fetch failed"), its cause's. */
function causeText(error: Error): string {
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : error.message;
}
