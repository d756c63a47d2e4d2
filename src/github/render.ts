/**
 * Pure rendering of the reply comment for one command (or sweep), from what
 * the ledger decided. Nothing here talks to GitHub or reads the clock: the
 * time of the decision travels in the reply model, so rendering the same
 * model twice gives the same text.
 */
import { formatDuration } from "../commands/parse-duration.js";
import { codeSpan } from "./code-span.js";
import { safeText } from "./safe-text.js";
import { renderHelp } from "./render-help.js";
import type { LeaseView, PlaceView, Reply, TenureView } from "../commands/reply.js";
import { iso, marker } from "./reply-marker.js";

export interface RenderExtras {
  /** Set when the app tried to assign the holder and GitHub refused. */
  assignRefused?: boolean;
  /** A random id that makes this comment findable after a crash (written with the outbox effect). */
  ref?: string;
  /** Set when the reply is posted after newer replies on the issue: when it was decided. */
  decidedAt?: number;
}

const who = (login: string, mention = false) => (mention ? `@${login}` : `**${login}**`);

/** The holder of a lease, with the instance an API client named (validated, and shown as code all the same). */
const holderOf = (l: { holder: string; instance?: string }, mention = false) =>
  l.instance === undefined ? who(l.holder, mention) : `${who(l.holder, mention)} (instance ${codeSpan(l.instance, 40)})`;

function when(ms: number, at: number): string {
  const d = new Date(ms);
  const stamp = `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const delta = ms - at;
  const rel = Math.abs(delta) < 1000 ? "now" : delta > 0 ? `in ${roughly(delta)}` : `${roughly(-delta)} ago`;
  return `${stamp} (${rel})`;
}

/** A duration rounded for reading: "3 days", "2 hours", "45 minutes". */
export function roughly(ms: number): string {
  const steps: Array<[number, number]> = [
    [7 * 86_400_000, 14 * 86_400_000],
    [86_400_000, 2 * 86_400_000],
    [3_600_000, 2 * 3_600_000],
    [60_000, 2 * 60_000],
    [1000, 0],
  ];
  for (const [unit, min] of steps) {
    if (ms >= min) return formatDuration(Math.round(ms / unit) * unit);
  }
  return formatDuration(ms);
}

/** `#2`, `#2 and #3`, `#2, #3 and #4`. */
function pullList(pulls: number[]): string {
  const refs = pulls.map((p) => `#${p}`);
  return refs.length <= 1 ? refs.join("") : `${refs.slice(0, -1).join(", ")} and ${refs[refs.length - 1]}`;
}

function expiry(lease: LeaseView, at: number): string {
  const held = lease.heldBy;
  if (held?.kind === "exempt") return "does not expire while the issue carries an exempt label";
  if (held?.kind === "pull") return `is held while ${pullList(held.pulls)} ${held.pulls.length === 1 ? "is" : "are"} open`;
  return lease.expiresAt === null ? "has no expiry" : `expires ${when(lease.expiresAt, at)}`;
}

function headline(r: Reply): string {
  const l = r.lease;
  switch (r.outcome) {
    case "acquired": {
      if (r.op === "handoff") return handoffLine(r);
      const given = r.assignedBy ? `, given by ${who(r.assignedBy)},` : "";
      return r.newTenure === false
        ? `${holderOf(l!, r.mentionHolder)} already held this issue${given}; the lease (token **${l!.token}**) now ${expiry(l!, r.at)}.`
        : `${holderOf(l!, r.mentionHolder)} now holds this issue${given} with lease token **${l!.token}**; it ${expiry(l!, r.at)}.`;
    }
    case "held":
      return `This issue is held by ${holderOf(l!)} (token **${l!.token}**), whose lease ${expiry(l!, r.at)}. Nothing changed.`;
    case "renewed":
      return `${holderOf(l!)}'s lease (token **${l!.token}**) was renewed and now ${expiry(l!, r.at)}.`;
    case "not_holder":
      return l
        ? `Only the holder can do that: this issue is held by ${holderOf(l)} (token **${l.token}**), whose lease ${expiry(l, r.at)}. Nothing changed.`
        : `There is no live lease on this issue to ${r.op}. Nothing changed; use \`/claim\` to take it.`;
    case "released":
      if (!l) return "There was no live lease on this issue; it is free. Nothing else changed.";
      // No actor: an event ended the lease (the issue was closed), not the holder; `reason` says which.
      if (r.actor === null) return `${holderOf(l, r.mentionHolder)}'s lease (token **${l.token}**) ended. The issue is free.`;
      return r.actor && r.actor.toLowerCase() !== l.holder.toLowerCase()
        ? `${who(r.actor)} released ${holderOf(l, r.mentionHolder)}'s lease (token **${l.token}**). The issue is free.`
        : `${holderOf(l)} released the lease (token **${l.token}**). The issue is free.`;
    case "expired":
      return `${holderOf(l!, r.mentionHolder)}'s lease (token **${l!.token}**) expired ${when(l!.expiresAt ?? r.at, r.at)}. The issue is free.`;
    case "reminded":
      return `${holderOf(l!, true)}, your lease on this issue (token **${l!.token}**) ${expiry(l!, r.at)}.`;
    case "invalid":
      return "That command was not understood, so nothing changed.";
    case "forbidden":
      return "That command is not allowed here, so nothing changed.";
    case "help":
      return renderHelp(r.help!);
    case "queued":
      return (
        `${r.waiter ?? r.actor ? `${who((r.waiter ?? r.actor)!)}, you are` : "You are"} **${ordinal(r.position ?? 1)}** in line for this issue` +
        `${r.assignedBy ? ` (placed by ${who(r.assignedBy)})` : ""}, held by ${holderOf(l!)} (token **${l!.token}**), ` +
        `whose lease ${expiry(l!, r.at)}. The place lasts until ${when(r.queuedUntil ?? r.at, r.at)}.`
      );
    case "left_queue":
      return `${r.actor ? `${who(r.actor)}, you` : "You"} left the line for this issue. Nothing else changed.`;
    case "status":
      return l
        ? `This issue is held by ${holderOf(l)} with lease token **${l.token}**, acquired ${when(l.acquiredAt, r.at)}; it ${expiry(l, r.at)}.`
        : "This issue is free: nobody holds a lease on it.";
  }
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** A lease that ended passed to the first in line: how the last one ended, and the new holder, mentioned (they were waiting for this). */
function handoffLine(r: Reply): string {
  const l = r.lease!;
  const p = r.previous;
  let ended = "";
  if (p?.ended === "expired") ended = `${holderOf(p.lease)}'s lease (token **${p.lease.token}**) expired. `;
  else if (p && r.actor && r.actor.toLowerCase() !== p.lease.holder.toLowerCase()) {
    ended = `${who(r.actor)} released ${holderOf(p.lease)}'s lease (token **${p.lease.token}**). `;
  } else if (p) ended = `${holderOf(p.lease)} released the lease (token **${p.lease.token}**). `;
  return `${ended}${holderOf(l, true)}, first in line, now holds this issue with lease token **${l.token}**; it ${expiry(l, r.at)}.`;
}

function placeList(queue: PlaceView[]): string {
  return queue.map((p) => `${p.position}. ${holderOf(p)}`).join("\n");
}

function advice(r: Reply): string | null {
  switch (r.outcome) {
    case "queued":
      return "When the lease ends it passes to the first in line, who is mentioned. Ask again (`/claim`) to keep your place, or `/release` to leave the line.";
    case "acquired":
    case "renewed":
      // A client of the API renews and releases through it: no advice about comments.
      return r.via === "api" ? null : "Use `/renew [duration]` to extend the lease and `/release` to free the issue.";
    case "reminded":
      return "Use `/renew [duration]` to keep it, or `/release` if you are no longer working on it.";
    case "held":
      return "Ask the holder, or wait for the lease to end; a maintainer can `/release @holder`.";
    case "released":
    case "expired":
      return r.lease ? `Anyone can \`/claim\` it now; the next lease gets token **${r.lease.token + 1}**.` : null;
    default:
      return null;
  }
}

function tenureTable(tenures: TenureView[], at: number): string {
  const rows = tenures.map(
    (t) =>
      `| ${holderOf(t)} | ${t.token} | ${when(t.from, at)} | ${t.to === null ? "–" : when(t.to, at)} | ${t.ended} |`,
  );
  return ["| Holder | Token | From | To | How it ended |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
}

/** The whole reply comment, its marker on the last line. */
export function renderReply(r: Reply, extras: RenderExtras = {}): string {
  const parts: string[] = [];
  if (extras.decidedAt !== undefined) {
    parts.push(`_Posted late: this reply was decided at ${iso(extras.decidedAt)}, before the replies above it._`);
  }
  if (r.command !== null) parts.push(`> ${codeSpan(r.command)}`);
  // A duration outside the range was understood: its reason (what the range is) says what happened, in place of "not understood".
  const reasonFirst = r.outcome === "invalid" && r.rule === "ttl" && r.reason !== undefined;
  if (!reasonFirst) parts.push(headline(r));
  if (r.via === "api") {
    const done = r.op === "release" || r.op === "handoff" ? "Released" : r.op === "renew" ? "Renewed" : r.outcome === "queued" ? "Queued" : "Claimed";
    parts.push(`_${done} through the issue-leases API._`);
    if (r.note) parts.push(`Note: ${codeSpan(r.note, 200)}`);
  }
  if (r.reason) parts.push(safeText(r.reason));
  if (extras.assignRefused && r.lease) {
    parts.push(
      `GitHub did not assign ${who(r.lease.holder)} (it refuses bots and accounts without access to this repository). The lease stands; the labels show it.`,
    );
  }
  if (r.queue && r.queue.length > 0) parts.push(`Waiting in line:\n\n${placeList(r.queue)}`);
  if (r.tenures && r.tenures.length > 0) parts.push(`Recent tenures:\n\n${tenureTable(r.tenures, r.at)}`);
  const tip = advice(r);
  if (tip) parts.push(tip);
  if (r.ignored > 0) {
    parts.push(
      `Only the first command in a comment runs; ${r.ignored === 1 ? "1 other command was" : `${r.ignored} other commands were`} ignored.`,
    );
  }
  parts.push(marker(r, extras.ref));
  return parts.join("\n\n");
}
