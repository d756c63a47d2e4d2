/**
 * The HTTP API for bots, served by the app's own server:
 *
 *   POST   /api/v1/repos/{owner}/{repo}/issues/{number}/lease          claim (?wait=true: wait in line, 202, when held)
 *   PATCH  /api/v1/repos/{owner}/{repo}/issues/{number}/lease          renew (the heartbeat)
 *   DELETE /api/v1/repos/{owner}/{repo}/issues/{number}/lease          release, or leave the line (?instance=)
 *   GET    /api/v1/repos/{owner}/{repo}/issues/{number}/lease          the live lease, the line and recent tenures
 *   POST   /api/v1/repos/{owner}/{repo}/issues/{number}/lease/verify   is this token live and mine?
 *   GET    /api/v1/openapi.json                                        the document describing all of it
 *
 * Thin: what they ask (requests.ts: anything malformed is answered 422
 * before GitHub is asked anything, so that bad input is never taken for an
 * outage), who calls (identity.ts), may they (access.ts, and GitHub's
 * moderation: moderation.ts), then the very LeaseCommand a comment runs,
 * and its answer (answers.ts). Paths it does not know are left to other
 * handlers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { ConfigResult } from "../config/config.js";
import { tenuresOf } from "../leasing/handle-command.js";
import { LeaseCommand, leaseResultOf, type LeaseResult, type ReplyFor } from "../leasing/lease-command.js";
import type { IssueKey } from "../ledger/types.js";
import type { LeaseBook, LeaseReads } from "../ledger/roles.js";
import type { Permission } from "../github/github-port.js";
import { type Answer, errorAnswer, leaseAnswer, leaseJson, NOT_FOUND, placeJson, tenureJson } from "./answers.js";
import type { ApiRepo, RepoAccess } from "./access.js";
import { clientAddress } from "./client-address.js";
import { bearerToken, GitHubUnavailable, type Identities, type Identity } from "./identity.js";
import type { Moderation } from "./moderation.js";
import openapi from "./openapi.json" with { type: "json" };
import { RateLimited, type RateLimiter } from "./rate-limit.js";
import { idempotencyKey, instanceParam, isAnswer, issueRef, type IssueRef, leaseRequest, readBody, verifyRequest, waitParam } from "./requests.js";

export interface ApiDeps {
  ledger: LeaseBook & LeaseReads;
  clock: () => number;
  identities: Identities;
  access: RepoAccess;
  /** What GitHub would not let the caller do by a comment (blocks, locks, interaction limits). */
  moderation: Pick<Moderation, "refusal">;
  limiter: RateLimiter;
  /** Proxies whose X-Forwarded-For names the client (client-address.ts). */
  trustProxyHops: number;
  /** The repository's config, through the app's config cache. */
  config: (repo: ApiRepo) => Promise<ConfigResult>;
  /** A login's permission on the repository, asked of GitHub with the app's token (`author_first`). */
  permission: (repo: ApiRepo, login: string) => Promise<Permission>;
  /** Remembers which installation serves the repository (the sweeper needs it for expiries). */
  rememberRepo: (repoId: number, full: string, installation: number) => Promise<void>;
  /** Wakes the outbox drainer: effects were written. */
  kick: () => void;
  /** Runs a request's work so that shutdown waits for its transaction. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  log: Pick<Logger, "info" | "warn" | "error">;
}

const LEASE_PATH = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/([^/]+)\/lease(\/verify)?$/;
const OPENAPI_PATH = "/api/v1/openapi.json";
const OPENAPI_TEXT = JSON.stringify(openapi);

type Op = "claim" | "renew" | "release" | "status" | "verify";
const OPS: Record<string, Op> = { POST: "claim", PATCH: "renew", DELETE: "release", GET: "status" };

function send(res: ServerResponse, answer: Answer): void {
  const body = JSON.stringify(answer.body);
  res
    .writeHead(answer.status, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(body),
      ...answer.headers,
    })
    .end(body);
}

export function apiHandler(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = (req.method ?? "GET").toUpperCase();
    if (url.pathname === OPENAPI_PATH) {
      if (method !== "GET" && method !== "HEAD") send(res, errorAnswer(405, "method_not_allowed", "Use GET.", { headers: { allow: "GET, HEAD" } }));
      else res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" }).end(OPENAPI_TEXT);
      return true;
    }
    const m = LEASE_PATH.exec(url.pathname);
    if (!m) return false;
    const verify = m[4] !== undefined;
    const op: Op | undefined = verify ? (method === "POST" ? "verify" : undefined) : OPS[method];
    if (!op) {
      const allow = verify ? "POST" : "GET, POST, PATCH, DELETE";
      send(res, errorAnswer(405, "method_not_allowed", `Use ${allow}.`, { headers: { allow } }));
      return true;
    }
    let answer: Answer;
    try {
      answer = await serve(deps, req, url, op, m);
    } catch (error) {
      answer = failure(deps, error, op);
    }
    send(res, answer);
    return true;
  };
}

/** Too many unknown tokens from one address (429), an error of GitHub's (502, retry), shutting down (503, retry), or a fault of ours or the database's (500, logged). */
function failure(deps: ApiDeps, error: unknown, op: Op): Answer {
  if (error instanceof RateLimited) {
    return errorAnswer(429, "rate_limited", `${error.message}.`, { headers: { "retry-after": String(error.retryAfter) } });
  }
  if (error instanceof GitHubUnavailable) {
    deps.log.warn({ err: error, op }, "API: GitHub did not answer");
    return errorAnswer(502, "github_unavailable", `${error.message}; try again.`, { headers: { "retry-after": "5" } });
  }
  if ((error as { status?: number }).status === 503) {
    return errorAnswer(503, "unavailable", "The app is shutting down; try again.", { headers: { "retry-after": "5" } });
  }
  deps.log.error({ err: error, op }, "API: request failed");
  return errorAnswer(500, "internal", "Internal error; nothing was changed unless a retry with the same Idempotency-Key says so.");
}

async function serve(deps: ApiDeps, req: IncomingMessage, url: URL, op: Op, path: RegExpExecArray): Promise<Answer> {
  const text = op === "claim" || op === "renew" || op === "verify" ? await readBody(req) : (req.resume(), "");
  if (isAnswer(text)) return text;
  const token = bearerToken(req);
  if (token === null || token === "malformed") {
    return errorAnswer(401, "unauthorized", "Send a GitHub token: `Authorization: Bearer <token>`.", { headers: { "www-authenticate": "Bearer" } });
  }
  // Everything the request says is checked before GitHub is asked who the token is: input that can never succeed is a 422, whatever GitHub's state.
  const ref = issueRef(path[1]!, path[2]!, path[3]!);
  if (isAnswer(ref)) return ref;
  const asked = op === "claim" || op === "renew" ? leaseRequest(text) : op === "verify" ? verifyRequest(text) : instanceParam(url.searchParams.get("instance"));
  if (isAnswer(asked)) return asked;
  const key = op === "status" || op === "verify" ? undefined : idempotencyKey(req);
  if (isAnswer(key)) return key;
  const wait = op === "claim" ? waitParam(url.searchParams.get("wait")) : false;
  if (isAnswer(wait)) return wait;

  const who = await deps.identities.who(token, clientAddress(req, deps.trustProxyHops));
  if (!who) return errorAnswer(401, "unauthorized", "GitHub does not accept this token.", { headers: { "www-authenticate": "Bearer" } });
  const retryIn = deps.limiter.take(who.id);
  if (retryIn > 0) {
    return errorAnswer(429, "rate_limited", `Too many requests from ${who.login}; try again in ${retryIn} s.`, { headers: { "retry-after": String(retryIn) } });
  }

  const repo = await deps.access.repo(token, ref.owner, ref.name);
  if (!repo) return NOT_FOUND;
  const full = `${repo.owner}/${repo.name}`;
  const issueKey: IssueKey = { repoId: repo.id, repo: full, issue: ref.issue };
  const now = deps.clock();

  if (op === "status") {
    const [lease, history, line] = await Promise.all([
      deps.ledger.current(issueKey, now),
      deps.ledger.history(issueKey, 200),
      deps.ledger.queue(issueKey, now),
    ]);
    const tenures = tenuresOf(history, now).slice(-10).map(tenureJson);
    return { status: 200, body: { outcome: "status", ...leaseJson(full, ref.issue, lease), queue: line.map(placeJson), tenures } };
  }
  if (op === "verify") {
    const { token: asking, instance } = asked as { token: number; instance?: string };
    const lease = await deps.ledger.current(issueKey, now);
    const valid = lease !== null && lease.token === asking && lease.holder.id === who.id && (lease.holder.instance ?? null) === (instance ?? null);
    return { status: valid ? 200 : 409, body: { valid, lease: lease ? leaseJson(full, ref.issue, lease) : null } };
  }

  const { ttl = null, instance } = asked as { ttl?: number | null; instance?: string };
  // Scoped to the caller, the operation and the issue: the same key sent for another issue is another request.
  const delivery = key === undefined ? undefined : `api:${who.id}:${op}${wait ? "-wait" : ""}:${repo.id}#${ref.issue}:${instance ?? ""}:${key}`;
  if (delivery !== undefined) {
    const first = await deps.ledger.recorded(delivery);
    if (first !== null) return leaseAnswer(full, ref.issue, leaseResultOf(first, true, issueKey));
  }
  const result = await deps.track(() => runCommand(deps, { token, repo, ref, who, op, ttl, instance, delivery, now, wait }));
  if (isAnswer(result)) return result;
  deps.log.info(
    { repo: full, issue: ref.issue, op, outcome: result.outcome, login: who.login, instance, duplicate: result.duplicate },
    "API command",
  );
  return leaseAnswer(full, ref.issue, result);
}

async function runCommand(
  deps: ApiDeps,
  r: {
    token: string;
    repo: ApiRepo;
    ref: IssueRef;
    who: Identity;
    op: "claim" | "renew" | "release";
    ttl: number | null;
    instance?: string;
    delivery?: string;
    now: number;
    wait: boolean;
  },
): Promise<LeaseResult | Answer> {
  const { repo, ref, who, op, now } = r;
  const config = await deps.config(repo);
  let issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number } = { number: ref.issue, labels: [] };
  // What a comment could not do, the API does not do either; a release is let through, as it only gives up.
  const moderated = op === "release" ? Promise.resolve(null) : deps.moderation.refusal(r.token, repo, ref.issue, who);
  if (op === "claim") {
    // The issue must exist (for the caller), be open, and keep the labels it had: a label it already has is not the app's to take off.
    const [seen] = await Promise.all([deps.access.issue(r.token, repo, ref.issue), moderated.catch(() => null)]);
    if (!seen) return NOT_FOUND;
    issue = { number: ref.issue, ...seen };
  }
  const refusal = await moderated;
  if (refusal) return errorAnswer(403, "forbidden", refusal.message, { reason: refusal.reason });
  // Who may claim, and whose replies are limited, by GitHub's `author_association`: asked only when a rule needs it.
  const needed = config.ok && (config.config.maxRepliesPerHour > 0 || (op === "claim" && config.config.claimers !== "anyone")) && op !== "renew";
  const association = needed ? await deps.access.association(repo, who) : "NONE";
  const reply: ReplyFor = (outcome, lease, extra = {}) => {
    const changed = outcome === "acquired" ? extra.newTenure !== false : outcome === "released" && lease !== null;
    if (!changed) return null;
    return { op: outcome === "acquired" ? "claim" : "release", outcome, issue: ref.issue, at: now, command: null, actor: who.login, lease, ignored: 0, via: "api", ...extra };
  };
  const command = new LeaseCommand(
    {
      ...(r.delivery !== undefined ? { delivery: r.delivery } : {}),
      installation: repo.installation,
      repo: { id: repo.id, owner: repo.owner, name: repo.name },
      issue,
      actor: { id: who.id, login: who.login, type: who.type, association, ...(r.instance !== undefined ? { instance: r.instance } : {}) },
      reply,
      changesOnly: true,
      wait: r.wait,
    },
    config,
    { ledger: deps.ledger, now, permission: (login) => deps.permission(repo, login) },
  );
  const result = op === "claim" ? await command.claim(r.ttl) : op === "renew" ? await command.renew(r.ttl) : await command.release();
  await deps.rememberRepo(repo.id, `${repo.owner}/${repo.name}`, repo.installation);
  // Only a new tenure or the end of one wrote effects (changesOnly): a heartbeat wakes no drainer.
  const changed =
    (result.outcome === "acquired" && result.newTenure) || (result.outcome === "released" && (result.lease !== null || result.handoff !== undefined));
  if (changed && !result.duplicate) deps.kick();
  return result;
}
