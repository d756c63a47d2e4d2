/**
 * Claim next (issue 22):
 *
 *   POST /api/v1/repos/{owner}/{repo}/leases/next   the first ready issue of the repository
 *   POST /api/v1/orgs/{org}/leases/next             of every repository of the owner the app serves and the token reads
 *
 * The request is checked first (next-request.ts: 422 before GitHub is asked
 * anything), then who calls and what they may see, as for a claim; then the
 * inventory's ready list is walked (leasing/next-claim.ts), each issue
 * claimed as a claim of the API is (run-command.ts), with the issue's state
 * and labels from the inventory instead of a read of GitHub. 200 answers as
 * an acquired claim; 404 `nothing_ready` says how many issues matched and
 * how many of those are held.
 *
 * An `Idempotency-Key` makes a retry answer the same issue: every attempt
 * carries the delivery id `api:<caller>:next:<repository id or org>:<instance>:<key>`,
 * recorded only by the claim that acquires (`recordOnly`), so that an attempt
 * lost to another claimer leaves it to the next attempt, and a retry (even
 * one running at the same time) finds the first call's lease.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { attemptOf, claimNext } from "../leasing/next-claim.js";
import { type LeaseResult, leaseResultOf } from "../leasing/lease-result.js";
import type { ApiRepo } from "./access.js";
import type { ApiDeps } from "./api-deps.js";
import { type Answer, errorAnswer, leaseAnswer, NOT_FOUND } from "./answers.js";
import { bearerToken, callerKey, type Identity, reaches } from "./identity.js";
import { type NextScope, nextRequest, nextScope } from "./next-request.js";
import { caller, failure, send } from "./respond.js";
import { idempotencyKey, isAnswer, readBody } from "./requests.js";
import { type CommandResult, outsideScope, replayAbout, runCommand } from "./run-command.js";

const NEXT_PATH = /^\/api\/v1\/(?:orgs\/([^/]+)|repos\/([^/]+)\/([^/]+))\/leases\/next$/;

/** The handler of both paths; false for any other path. Its set of issues being tried is shared by every call it serves. */
export function nextHandler(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse, url: URL, method: string) => Promise<boolean> {
  const trying = new Map<string, Promise<unknown>>();
  return async (req, res, url, method) => {
    const m = NEXT_PATH.exec(url.pathname);
    if (!m) return false;
    let answer: Answer;
    if (method !== "POST") answer = errorAnswer(405, "method_not_allowed", "Use POST.", { headers: { allow: "POST" } });
    else {
      try {
        answer = await serveNext(deps, trying, req, m);
      } catch (error) {
        answer = failure(deps, error, "next");
      }
    }
    send(res, answer);
    return true;
  };
}

/**
 * The repositories the caller may claim in: those it sees and the app serves (the owner's with an inventory, for the
 * org form), and for a bot, those its token reaches (identity.ts `reaches`).
 */
async function reposOf(deps: ApiDeps, token: string, who: Identity, scope: NextScope): Promise<ApiRepo[]> {
  if (scope.kind === "repo") {
    const repo = await deps.access.repo(token, scope.owner, scope.name);
    return repo ? [repo] : [];
  }
  const known = await deps.ledger.inventoryRepos(scope.org);
  const seen = await Promise.all(
    known.map((r) => {
      const [owner, name] = r.repo.split("/") as [string, string];
      return reaches(who, r.repoId) ? deps.access.repo(token, owner, name) : null;
    }),
  );
  return seen.filter((r) => r !== null);
}

/**
 * The repository's inventory was never filled (installed just now, added while the app ran, or an event missed): its
 * fill starts now, unless one is under way, and the answer says when to come back.
 */
async function filling(deps: ApiDeps, repo: ApiRepo): Promise<Answer> {
  const full = `${repo.owner}/${repo.name}`;
  await deps.rememberRepo(repo.id, full, repo.installation, repo.private);
  const ms = deps.fillInventory({ repoId: repo.id, repo: full, installation: repo.installation }, repo.openIssues);
  const seconds = ms === null ? 60 : Math.max(1, Math.ceil(ms / 1000));
  const message = `The app is reading this repository's open issues for the first time; try again in ${seconds} s.`;
  return errorAnswer(503, "inventory_filling", message, { headers: { "retry-after": String(seconds) } });
}

/** A claim's answer, for the issue its lease names (a duplicate's may be another than the one tried). */
function answerOf(result: CommandResult, repo: ApiRepo, tried?: number): Answer {
  const lease = "lease" in result ? result.lease : null;
  return leaseAnswer(lease?.repo ?? `${repo.owner}/${repo.name}`, lease?.issue ?? tried ?? 0, result, result.about);
}

/** The answer of a call that took its issue before (a retry): as the first, the issue's title read again. */
async function replayed(deps: ApiDeps, token: string, result: LeaseResult, repos: ApiRepo[]): Promise<Answer> {
  const lease = "lease" in result ? result.lease : null;
  const repo = repos.find((r) => `${r.owner}/${r.name}`.toLowerCase() === lease?.repo.toLowerCase()) ?? repos[0]!;
  const about = result.outcome === "acquired" && lease ? await replayAbout(deps, token, repo, lease.issue) : undefined;
  return answerOf({ ...result, ...(about ? { about } : {}) }, repo);
}

async function serveNext(deps: ApiDeps, trying: Map<string, Promise<unknown>>, req: IncomingMessage, path: RegExpExecArray): Promise<Answer> {
  const text = await readBody(req);
  if (isAnswer(text)) return text;
  const token = bearerToken(req);
  if (token === null || token === "malformed") {
    return errorAnswer(401, "unauthorized", "Send a GitHub token: `Authorization: Bearer <token>`.", { headers: { "www-authenticate": "Bearer" } });
  }
  const scope = nextScope(path);
  if (isAnswer(scope)) return scope;
  const asked = nextRequest(text);
  if (isAnswer(asked)) return asked;
  const key = idempotencyKey(req);
  if (isAnswer(key)) return key;

  const who = await caller(deps, req, token);
  if (isAnswer(who)) return who;
  const repos = await reposOf(deps, token, who, scope);
  if (repos.length === 0) return NOT_FOUND;
  if (scope.kind === "repo" && !reaches(who, repos[0]!.id)) return outsideScope(who, `${repos[0]!.owner}/${repos[0]!.name}`);
  if (scope.kind === "repo" && (await deps.ledger.lastFill(repos[0]!.id)) === null) return await filling(deps, repos[0]!);
  const { instance, ttl } = asked;
  const now = deps.clock();
  const scopeId = scope.kind === "repo" ? String(repos[0]!.id) : scope.org.toLowerCase();
  // The caller's key, not its account alone: two workflows' GITHUB_TOKENs of one owner are one account, two callers.
  const base = key === undefined ? undefined : `api:${callerKey(who)}:next:${scopeId}:${instance ?? ""}:${key}`;
  if (base !== undefined) {
    const first = await deps.ledger.recorded(base);
    if (first !== null) return replayed(deps, token, leaseResultOf(first, true), repos);
  }
  const byId = new Map(repos.map((r) => [r.id, r]));
  const outcome = await deps.track(() =>
    claimNext({ ledger: deps.ledger, now, trying }, { ...asked.filter, me: who.id, repoIds: repos.map((r) => r.id) }, async (issue) => {
      const repo = byId.get(issue.repoId)!;
      const full = `${repo.owner}/${repo.name}`;
      const result = await runCommand(deps, {
        token,
        repo,
        ref: { owner: repo.owner, name: repo.name, issue: issue.issue },
        who,
        op: "claim",
        ttl,
        ...(instance !== undefined ? { instance } : {}),
        ...(base !== undefined ? { delivery: base, recordAcquiredOnly: true } : {}),
        now: deps.clock(),
        known: {
          state: "open",
          labels: issue.labels,
          createdAt: issue.createdAt,
          title: issue.title,
          ...(issue.authorId !== null ? { authorId: issue.authorId } : {}),
        },
      });
      if (isAnswer(result)) {
        // GitHub's moderation: a locked issue is that issue's; a block or an interaction limit is the caller's.
        const reason = (result.body as { error?: { reason?: string } }).error?.reason;
        return reason === "locked" ? { kind: "skip" } : { kind: "answer", answer: result };
      }
      deps.log.info({ repo: full, issue: issue.issue, op: "next", outcome: result.outcome, login: who.login, instance, duplicate: result.duplicate }, "API command");
      // A duplicate is a retry of this call that took an issue first (maybe another): its lease says which.
      return attemptOf(result, result.duplicate ? await replayed(deps, token, result, repos) : answerOf(result, repo, issue.issue));
    }),
  );
  if (outcome.kind === "answer") return outcome.answer;
  const { matched, held } = outcome;
  const message =
    matched === 0 ? "No open issue matches these filters." : `${matched} open issue${matched === 1 ? "" : "s"} match, ${held} held; none is free for you now.`;
  return { status: 404, body: { error: { code: "nothing_ready", message }, matched, held } };
}
