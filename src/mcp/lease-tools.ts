/**
 * The lease tools, named in the agent's words, each with its description,
 * input and output schemas (tool-schemas.ts) and honest annotations: what
 * changes nothing is read-only; a release is destructive (it ends the
 * holder's claim); a claim, a renewal and a release may be repeated to the
 * same effect, a `next` may not (each call takes another issue); what
 * writes on GitHub (the app's reply to a claim or release) is open-world.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LeaseHeldError, type NextFilters, type NextScope, type ParsedRef, parseRef } from "@issue-leases/client";
import type { LeaseSession } from "./lease-session.js";
import {
  acquiredText,
  answer,
  leaseData,
  queuedText,
  refusal,
  refusalText,
  releasedText,
  type ServiceName,
  trailer,
} from "./tool-results.js";
import {
  claimInput,
  leaseOutput,
  mineOutput,
  nextInput,
  releaseInput,
  renewInput,
  statusInput,
  statusOutput,
  verifyInput,
  verifyOutput,
} from "./tool-schemas.js";

const URL_FORM = /^https?:\/\/[^/]+\/([^/]+)\/([^/]+)\/issues\/(\d+)\/?$/;

/** `owner/repo#N`, or the issue's URL, as the client's reference (the schema checked its form). */
export function issueOf(text: string): ParsedRef {
  const m = URL_FORM.exec(text.trim());
  return parseRef(m ? { owner: m[1]!, repo: m[2]!, issue: Number(m[3]) } : text);
}

export function registerLeaseTools(server: McpServer, session: LeaseSession, service: ServiceName): void {
  /** Runs a call; any error is the refusal an agent can act on, the session's lost leases first in either. */
  const run = async (call: () => Promise<{ text: string; data: Record<string, unknown> }>, onHeld?: ParsedRef): Promise<CallToolResult> => {
    try {
      const { text, data } = await call();
      return answer(text, data, session.takeLost());
    } catch (error) {
      const waiting = error instanceof LeaseHeldError && onHeld ? await lineLength(session, onHeld) : undefined;
      return refusal(refusalText(error, service, waiting), session.takeLost());
    }
  };

  server.registerTool(
    "claim_issue",
    {
      title: "Claim an issue",
      description:
        "Take the lease of one GitHub issue, so that no other agent or person works on it while you do. The answer gives the issue's title and URL, " +
        "the fencing token, the expiry, and the `Lease-Token:` line to put in each commit. This session renews the lease while it is open. " +
        "Claiming an issue you hold already extends it (same token). If someone else holds it the call is refused (isError), naming the holder; " +
        "with wait: true you take a place in its line instead and the lease comes to this session when it is released.",
      inputSchema: claimInput,
      outputSchema: leaseOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ issue, ttl, note, wait }) => {
      const ref = issueOf(issue);
      return run(async () => {
        const a = await session.claim(ref, { ttl, note, wait });
        if (a.outcome === "queued") {
          const data = { ...leaseData({ ...a.lease, outcome: "acquired" }), outcome: "queued", position: a.position, queued_until: a.queued_until };
          return { text: queuedText(a), data };
        }
        const renewed = session.holds(ref);
        return { text: acquiredText(a, renewed), data: leaseData(a, { ...withTrailer(a), renewed_by_session: renewed }) };
      }, ref);
    },
  );

  server.registerTool(
    "claim_next_issue",
    {
      title: "Claim the next ready issue",
      description:
        "Take the lease of the first ready issue of a repository (repo: owner/repo) or of every repository of an owner (org), in one step: open, " +
        "free, nobody waiting, not blocked, no open pull request closing it, unassigned or assigned to you, matching the filters (labels, " +
        "any_labels, exclude_labels, milestone; order puts issues with those labels first). Twenty agents calling it at once get twenty " +
        "different issues. Answers as claim_issue does; when none is ready the call is refused (isError), saying how many matched and were held.",
      inputSchema: nextInput,
      outputSchema: leaseOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args) => {
      if ((args.repo === undefined) === (args.org === undefined)) {
        return refusal("Bad input: give exactly one of repo (owner/repo) or org (an owner's login).", session.takeLost());
      }
      const scope: NextScope = args.repo !== undefined ? args.repo : { org: args.org! };
      const filters: NextFilters = {
        ...(args.labels ? { labels: args.labels } : {}),
        ...(args.any_labels ? { anyLabels: args.any_labels } : {}),
        ...(args.exclude_labels ? { excludeLabels: args.exclude_labels } : {}),
        ...(args.milestone !== undefined ? { milestone: args.milestone } : {}),
        ...(args.order ? { order: args.order } : {}),
      };
      return run(async () => {
        const a = await session.next(scope, filters, args.ttl);
        const [owner = "", repo = ""] = a.repo.split("/");
        const renewed = session.holds({ owner, repo, issue: a.issue });
        return { text: acquiredText(a, renewed), data: leaseData(a, { ...withTrailer(a), renewed_by_session: renewed }) };
      });
    },
  );

  server.registerTool(
    "renew_lease",
    {
      title: "Renew a lease",
      description:
        "Extend your lease of an issue from now (by ttl, or the repository's default). Not needed while this session is open: it renews its " +
        "leases itself. Refused (isError) when you do not hold it any more.",
      inputSchema: renewInput,
      outputSchema: leaseOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ issue, ttl }) => {
      const ref = issueOf(issue);
      return run(async () => {
        const a = await session.renew(ref, ttl);
        const renewed = session.holds(ref);
        return { text: `Renewed ${a.repo}#${a.issue} (token ${a.token}) until ${a.expires_at ?? "its pull request or label lets go"}.`, data: leaseData(a, { ...withTrailer(a), renewed_by_session: renewed }) };
      });
    },
  );

  server.registerTool(
    "release_lease",
    {
      title: "Release a lease",
      description:
        "End your lease of an issue when the work is done or abandoned (the first in line, if any, gets it), with an optional note shown on " +
        "GitHub; if you were only waiting in its line, leave the line. Releasing what you do not hold changes nothing.",
      inputSchema: releaseInput,
      outputSchema: leaseOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    async ({ issue, note }) => {
      const ref = issueOf(issue);
      return run(async () => {
        const a = await session.release(ref, note);
        return { text: releasedText(a), data: leaseData(a) };
      });
    },
  );

  server.registerTool(
    "lease_status",
    {
      title: "Who holds an issue",
      description: "The issue's live lease (holder, token, expiry; holder null when free) and who waits in its line. Changes nothing.",
      inputSchema: statusInput,
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ issue }) => {
      const ref = issueOf(issue);
      return run(async () => {
        const s = await session.client.status(ref);
        const queue = (s.queue ?? []).map((p) => ({ login: p.login, id: p.id, instance: p.instance ?? null, position: p.position, until: p.until }));
        const line = queue.length === 0 ? "" : ` ${queue.length} waiting in line: ${queue.map((p) => p.login).join(", ")}.`;
        const mine = session.holds(ref) ? " This session holds it and renews it." : "";
        const who = s.holder ? `held by ${s.holder.login}${s.holder.instance ? ` (instance ${s.holder.instance})` : ""} with token ${s.token}${s.expires_at ? ` until ${s.expires_at}` : ""}` : "free";
        return { text: `${s.repo}#${s.issue} is ${who}.${line}${mine}`, data: { ...leaseData(s), outcome: "status", queue } };
      });
    },
  );

  server.registerTool(
    "my_leases",
    {
      title: "My leases",
      description: "Every live lease of your GitHub account, in every repository the app serves, and which of them this session holds. Changes nothing.",
      inputSchema: {},
      outputSchema: mineOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () =>
      run(async () => {
        const all = await session.mine();
        const leases = all.map((l) => ({
          repo: l.repo,
          issue: l.issue,
          holder: { login: l.holder.login, id: l.holder.id, instance: l.holder.instance ?? null },
          token: l.token,
          expires_at: l.expires_at,
          ...(l.title !== undefined ? { title: l.title } : {}),
          ...(typeof l.url === "string" ? { url: l.url } : {}),
          this_session: l.this_session,
        }));
        const lines = leases.map((l) => `- ${l.repo}#${l.issue}${l.title ? ` "${l.title}"` : ""}: token ${l.token}, until ${l.expires_at ?? "open-ended"}${l.this_session ? " (this session)" : ""}`);
        return { text: leases.length === 0 ? "You hold no lease." : `You hold ${leases.length} lease${leases.length === 1 ? "" : "s"}:\n${lines.join("\n")}`, data: { leases } };
      }),
  );

  server.registerTool(
    "verify_lease_token",
    {
      title: "Verify a lease token",
      description:
        "Whether a fencing token is the issue's live one and yours (this session's holder): ask just before a side effect only the holder may " +
        "make (a push, a merge). Not an error when it is not: valid is false and the answer names who holds it now. Changes nothing.",
      inputSchema: verifyInput,
      outputSchema: verifyOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ issue, token }) => {
      const ref = issueOf(issue);
      return run(async () => {
        const v = await session.client.verify(ref, token, { instance: session.instance });
        const lease = v.lease ? { repo: v.lease.repo, issue: v.lease.issue, holder: leaseData(v.lease).holder, token: v.lease.token, expires_at: v.lease.expires_at } : null;
        const text = v.valid
          ? `Token ${token} is the live lease of ${ref.owner}/${ref.repo}#${ref.issue}, and yours: go ahead.`
          : `Token ${token} is not your live lease of ${ref.owner}/${ref.repo}#${ref.issue}: ${lease?.holder ? `it is held by ${(lease.holder as { login: string }).login} with token ${lease.token}` : "it is free"}. Do not push or merge with it.`;
        return { text, data: { valid: v.valid, lease } };
      });
    },
  );
}

function withTrailer(a: { token: number | null; issue: number }): { trailer?: string } {
  const line = trailer(a);
  return line === undefined ? {} : { trailer: line };
}

/** How many wait in the issue's line, for a refusal's "you would be Nth"; unknown when the status cannot be read. */
async function lineLength(session: LeaseSession, ref: ParsedRef): Promise<{ waiting: number } | undefined> {
  try {
    const s = await session.client.status(ref);
    return { waiting: s.queue?.length ?? 0 };
  } catch {
    return undefined;
  }
}
