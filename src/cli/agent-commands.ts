/**
 * What `issue-leases agent` prints for an answer of the API: one line for
 * a person, or the answer itself with --json (stdout either way; errors go
 * to stderr).
 */
import { formatRef, type LeaseAnswer, type LeaseStatus, type ListedLease, type ParsedRef, type VerifyResult } from "@issue-leases/client";
import { AGENT_EXIT } from "./agent-exit.js";
import { formatTable } from "./format-table.js";

interface Out {
  out(text: string): void;
  err(text: string): void;
}

export function holderText(lease: Pick<LeaseAnswer, "holder">): string {
  if (!lease.holder) return "nobody";
  return lease.holder.instance ? `${lease.holder.login} (instance ${lease.holder.instance})` : lease.holder.login;
}

function expiry(lease: Pick<LeaseAnswer, "expires_at">): string {
  return lease.expires_at ? `expires ${lease.expires_at}` : "open-ended";
}

/** A successful answer of claim, renew, release or status. */
export function printAnswer(answer: LeaseAnswer | LeaseStatus, json: boolean, io: Out): number {
  if (json) {
    io.out(JSON.stringify(answer, null, 2));
    return AGENT_EXIT.ok;
  }
  const issue = `${answer.repo}#${answer.issue}`;
  switch (answer.outcome) {
    case "acquired":
    case "renewed":
      io.out(`${answer.outcome} ${issue}: token ${answer.token}, ${expiry(answer)}, held by ${holderText(answer)}`);
      break;
    case "released": {
      const next = answer.handed_to ? `; ${holderText(answer.handed_to)} was first in line and holds it now with token ${answer.handed_to.token}` : "";
      io.out(answer.holder ? `released ${issue}: ${holderText(answer)}'s lease (token ${answer.token}) has ended${next}` : `released ${issue}: you held no lease on it`);
      break;
    }
    case "left_queue":
      io.out(`left the line for ${issue}${answer.holder ? `, held by ${holderText(answer)} with token ${answer.token}` : ""}`);
      break;
    default: {
      io.out(answer.holder ? `${issue} is held by ${holderText(answer)} with token ${answer.token}, ${expiry(answer)}` : `${issue} is free`);
      const tenures = (answer as LeaseStatus).tenures;
      if (Array.isArray(tenures) && tenures.length > 0) {
        io.out("");
        io.out(
          formatTable(
            ["TOKEN", "HOLDER", "FROM", "TO", "ENDED"],
            tenures.map((t) => [String(t.token), holderText(t), t.from, t.to ?? "-", t.ended]),
          ),
        );
      }
    }
  }
  return AGENT_EXIT.ok;
}

export function printVerify(ref: ParsedRef, token: number, result: VerifyResult, json: boolean, io: Out): number {
  if (json) io.out(JSON.stringify(result, null, 2));
  const issue = formatRef(ref);
  if (result.valid) {
    if (!json) io.out(`valid: token ${token} is the live lease on ${issue}, and it is yours`);
    return AGENT_EXIT.ok;
  }
  const now = result.lease?.holder ? `it is held by ${holderText(result.lease)} with token ${result.lease.token}` : "it is free";
  io.err(`issue-leases: not valid: token ${token} is not your live lease on ${issue}: ${now}`);
  return AGENT_EXIT.lost;
}

export function printMine(leases: ListedLease[], json: boolean, io: Out): number {
  if (json) {
    io.out(JSON.stringify(leases, null, 2));
  } else if (leases.length === 0) {
    io.out("no live leases");
  } else {
    io.out(
      formatTable(
        ["ISSUE", "TOKEN", "INSTANCE", "EXPIRES"],
        leases.map((l) => [`${l.repo}#${l.issue}`, String(l.token), l.holder?.instance ?? "-", l.expires_at ?? "never"]),
      ),
    );
  }
  return AGENT_EXIT.ok;
}
