/**
 * The lease check on pull requests, as pure functions: which issues a pull
 * request closes, which lease tokens it claims to act for, and whether its
 * author holds every lease involved.
 *
 * Closing references follow GitHub's closing keywords: close, closes,
 * closed, fix, fixes, fixed, resolve, resolves, resolved (any case, an
 * optional colon), then `#N`, `owner/repo#N` or an issue URL of the same
 * repository. References to other repositories are ignored.
 *
 * A bot shows which tenure it acts for with a line of its own:
 *
 *   Lease-Token: 7          (for every issue the pull request closes)
 *   Lease-Token: 7 #12      (for issue 12)
 */
import type { Lease } from "../ledger/types.js";

export const CHECK_NAME = "issue-leases";

const KEYWORDS = "(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)";
// Bounded quantifiers keep this linear on any body.
const REFERENCE = new RegExp(
  `(?<![\\w/])${KEYWORDS}:?[ \\t]{1,10}(?:https?://[^\\s/]{1,255}/([\\w.-]{1,100})/([\\w.-]{1,100})/issues/(\\d{1,9})|(?:([\\w.-]{1,100})/([\\w.-]{1,100}))?#(\\d{1,9}))(?![\\w#])`,
  "gi",
);
const TOKEN_LINE = /^[ \t]{0,3}lease-token:[ \t]*(\d{1,15})(?:[ \t]+(?:for[ \t]+)?#(\d{1,9}))?[ \t]*$/gim;

/** Issue numbers of this repository that the body says it closes, in order, without repeats. */
export function closingReferences(body: string, repoFullName: string): number[] {
  const [owner = "", name = ""] = repoFullName.toLowerCase().split("/");
  const found: number[] = [];
  for (const m of body.slice(0, 65_536).matchAll(REFERENCE)) {
    const refOwner = (m[1] ?? m[4])?.toLowerCase();
    const refName = (m[2] ?? m[5])?.toLowerCase();
    if (refOwner !== undefined && (refOwner !== owner || refName !== name)) continue;
    const issue = Number(m[3] ?? m[6]);
    if (issue > 0 && !found.includes(issue)) found.push(issue);
  }
  return found;
}

export interface LeaseTokens {
  /** A token given for every referenced issue. */
  all: number | null;
  byIssue: Map<number, number>;
}

export function leaseTokens(body: string): LeaseTokens {
  const tokens: LeaseTokens = { all: null, byIssue: new Map() };
  for (const m of body.slice(0, 65_536).matchAll(TOKEN_LINE)) {
    const token = Number(m[1]);
    if (m[2] === undefined) tokens.all = token;
    else tokens.byIssue.set(Number(m[2]), token);
  }
  return tokens;
}

export interface CheckInput {
  author: { id: number; login: string };
  /** Each referenced issue and its live lease (null when free). */
  leases: Array<{ issue: number; lease: Lease | null }>;
  tokens: LeaseTokens;
  requireLease: boolean;
}

export interface CheckResult {
  conclusion: "success" | "failure" | "neutral";
  title: string;
  summary: string;
}

function iso(ms: number | null): string {
  return ms === null ? "no expiry" : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Whether the pull request's author may act on every issue it closes, with current tokens. */
export function evaluateLeaseCheck(input: CheckInput): CheckResult {
  const { author, leases, tokens, requireLease } = input;
  if (leases.length === 0) {
    return requireLease
      ? {
          conclusion: "failure",
          title: "No claimed issue",
          summary:
            "This repository requires a lease for pull requests: say which issue this closes (`Fixes #N`) and `/claim` that issue first.",
        }
      : { conclusion: "neutral", title: "No lease involved", summary: "This pull request closes no issue of this repository." };
  }
  const problems: string[] = [];
  const fine: string[] = [];
  for (const { issue, lease } of leases) {
    const claimed = tokens.byIssue.get(issue) ?? tokens.all;
    if (!lease) {
      if (requireLease) problems.push(`#${issue} has no live lease: \`/claim\` it before opening a pull request that closes it.`);
      else fine.push(`#${issue} is free (no lease involved).`);
      continue;
    }
    const held = `held by **${lease.holder.login}** with token **${lease.token}**, expiring ${iso(lease.expiresAt)}`;
    if (lease.holder.id !== author.id) {
      problems.push(`#${issue} is ${held}, not by the author **${author.login}**.`);
    } else if (claimed !== null && claimed !== lease.token) {
      problems.push(
        `#${issue} is ${held}, but this pull request says \`Lease-Token: ${claimed}\`: ${
          claimed < lease.token ? "a stale tenure, fenced off" : "a token that was never issued"
        }.`,
      );
    } else {
      fine.push(`#${issue} is ${held}.`);
    }
  }
  const anyLease = leases.some((l) => l.lease !== null);
  if (problems.length > 0) {
    return { conclusion: "failure", title: "Lease not held", summary: [...problems, ...fine].map((l) => `- ${l}`).join("\n") };
  }
  if (!anyLease) {
    return { conclusion: "neutral", title: "No lease involved", summary: fine.map((l) => `- ${l}`).join("\n") };
  }
  return { conclusion: "success", title: "The author holds the lease", summary: fine.map((l) => `- ${l}`).join("\n") };
}
