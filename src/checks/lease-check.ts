/**
 * The lease check on pull requests, as pure functions: which issues a pull
 * request closes (GitHub's links, joined with the keywords of its title and
 * commit messages), which lease tokens it claims to act for, and whether its
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
import type { Lease } from "../ledger/leases/lease-types.js";

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

/** More closing references than this get one failing check, and nothing is read or remembered per issue. */
export const MAX_REFERENCES = 50;

/** What GitHub will close, as the drainer read it (see github/closing-issues.ts). */
export interface ClosingSources {
  /** Issues GitHub links as closing: body keywords and Development sidebar links. */
  linked: Array<{ number: number; repoId: number }>;
  linkedTotal: number;
  /** Texts whose closing keywords close issues once merged: the title and the commit messages. */
  texts: string[];
}

/**
 * The issues of this repository the pull request closes, GitHub's links
 * first, without repeats; or `tooMany` past `MAX_REFERENCES` (counting
 * GitHub's links to other repositories too: past 50 it is not looked at further).
 */
export function closedIssues(src: ClosingSources, repo: { id: number; fullName: string }): { issues: number[]; tooMany: boolean } {
  const found = new Set<number>();
  if (src.linkedTotal > MAX_REFERENCES) return { issues: [], tooMany: true };
  for (const l of src.linked) if (l.repoId === repo.id) found.add(l.number);
  for (const text of src.texts) {
    for (const issue of closingReferences(text, repo.fullName)) {
      found.add(issue);
      if (found.size > MAX_REFERENCES) return { issues: [], tooMany: true };
    }
  }
  return { issues: [...found], tooMany: false };
}

export interface CheckInput {
  author: { id: number; login: string };
  /** Each referenced issue, its live lease (null when free) and the token of its latest tenure (null: never leased). */
  leases: Array<{ issue: number; lease: Lease | null; latestToken: number | null }>;
  tokens: LeaseTokens;
  requireLease: boolean;
}

export interface CheckResult {
  conclusion: "success" | "failure" | "neutral";
  title: string;
  summary: string;
}

/** GitHub refuses a check run whose summary is longer than this. */
export const SUMMARY_LIMIT = 65_535;

/** The lines as a Markdown list, cut to `limit` with a last line saying how many were left out. */
export function fitSummary(lines: string[], limit = SUMMARY_LIMIT): string {
  const items = lines.map((l) => `- ${l}`);
  const whole = items.join("\n");
  if (whole.length <= limit) return whole;
  let kept = 0;
  let length = 0;
  // The last line is at most ~90 characters; keep room for it.
  while (kept < items.length && length + items[kept]!.length + 1 <= limit - 100) length += items[kept++]!.length + 1;
  const more = `… and ${items.length - kept} more lines left out: a check summary holds at most ${limit} characters.`;
  return [...items.slice(0, kept), more].join("\n");
}

/** The one check of a pull request past `MAX_REFERENCES`. */
export function tooManyReferences(): CheckResult {
  return {
    conclusion: "failure",
    title: `References more than ${MAX_REFERENCES} issues; the lease check does not look further`,
    summary: `This pull request would close more than ${MAX_REFERENCES} issues (closing keywords in its body, title or commit messages, and Development sidebar links). The lease check reads the leases of at most ${MAX_REFERENCES}: split the pull request, or say \`Refs #N\` rather than \`Fixes #N\` where it should not close an issue.`,
  };
}

function iso(ms: number | null): string {
  return ms === null ? "no expiry" : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** How long the lease lasts: its expiry, or what holds it instead (work-rules.ts). */
function until(lease: Lease): string {
  if (lease.heldBy.kind === "pull") return `held while ${lease.heldBy.pulls.map((p) => `#${p}`).join(", ")} ${lease.heldBy.pulls.length === 1 ? "is" : "are"} open`;
  if (lease.heldBy.kind === "exempt") return "exempt from expiry (an exempt label)";
  return `expiring ${iso(lease.expiresAt)}`;
}

/** Why a `Lease-Token` given for a free issue names no live tenure. */
function fencedWhileFree(issue: number, claimed: number, latest: number | null): string {
  const why =
    latest !== null && claimed <= latest
      ? `a stale tenure, fenced off: the issue is free, and its latest tenure (token **${latest}**) has ended`
      : "a token that was never issued";
  return `#${issue} has no live lease, but this pull request says \`Lease-Token: ${claimed}\`: ${why}. \`/claim\` it again and give the new token.`;
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
  for (const { issue, lease, latestToken } of leases) {
    const claimed = tokens.byIssue.get(issue) ?? tokens.all;
    if (!lease) {
      if (claimed !== null) problems.push(fencedWhileFree(issue, claimed, latestToken));
      else if (requireLease) problems.push(`#${issue} has no live lease: \`/claim\` it before opening a pull request that closes it.`);
      else fine.push(`#${issue} is free (no lease involved).`);
      continue;
    }
    const held = `held by **${lease.holder.login}** with token **${lease.token}**, ${until(lease)}`;
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
    return { conclusion: "failure", title: "Lease not held", summary: fitSummary([...problems, ...fine]) };
  }
  if (!anyLease) {
    return { conclusion: "neutral", title: "No lease involved", summary: fitSummary(fine) };
  }
  return { conclusion: "success", title: "The author holds the lease", summary: fitSummary(fine) };
}
