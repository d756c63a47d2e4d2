/**
 * The reason of a claim refused at a limit (`max_leases_per_holder`,
 * `limits_by_label`, `max_leases_per_holder_in_org`), from the ledger's
 * answer: the claim's reply (completed from that answer: reply-fill.ts) and
 * the API's 403 say the same.
 */
import type { IssueKey, Lease, LimitScope } from "../ledger/leases/lease-types.js";
import { codeSpan } from "./code-span.js";

/** At most this many held issues are named in a refusal. */
const LISTED = 20;

/**
 * The refusal of a claim over a limit, naming the issues the person holds
 * under it in this repository. Leases in the organisation's other
 * repositories are only counted: a reply in a public repository must not
 * name a private one.
 */
export function limitReason(key: IssueKey, res: { limit: number; held: Lease[]; scope?: LimitScope }): string {
  const here = res.held.filter((l) => l.repoId === key.repoId);
  const elsewhere = res.held.length - here.length;
  const shown = here.slice(0, LISTED).map((l) => `#${l.issue}`);
  if (here.length > LISTED) shown.push(`${here.length - LISTED} more`);
  if (elsewhere > 0) shown.push(elsewhere === 1 ? "1 in another repository" : `${elsewhere} in other repositories`);
  const leases = `${res.held.length} lease${res.held.length === 1 ? "" : "s"}`;
  const where =
    res.scope?.kind === "label"
      ? `on issues labelled ${codeSpan(res.scope.label, 50)} in this repository`
      : res.scope?.kind === "org"
        ? "across this organisation's repositories"
        : "in this repository";
  const setting = res.scope?.kind === "label" ? " (`limits_by_label`)" : res.scope?.kind === "org" ? " (`max_leases_per_holder_in_org`)" : "";
  const list = shown.length > 1 && elsewhere > 0 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : shown.join(", ");
  return `You already hold ${leases} ${where} (${list}); the limit is ${res.limit}${setting}. Release one with \`/release\` on its issue first.`;
}
