/**
 * The HTTP API for bots, served by the app's own server:
 *
 *   POST   /api/v1/repos/{owner}/{repo}/issues/{number}/lease          claim (?wait=true: wait in line, 202, when held)
 *   PATCH  /api/v1/repos/{owner}/{repo}/issues/{number}/lease          renew (the heartbeat)
 *   DELETE /api/v1/repos/{owner}/{repo}/issues/{number}/lease          release, or leave the line (?instance=)
 *   GET    /api/v1/repos/{owner}/{repo}/issues/{number}/lease          the live lease, the line and recent tenures
 *   POST   /api/v1/repos/{owner}/{repo}/issues/{number}/lease/verify   is this token live and mine?
 *   POST   /api/v1/repos/{owner}/{repo}/leases/next                    claim the next ready issue (next.ts)
 *   POST   /api/v1/orgs/{org}/leases/next                              the same over the owner's repositories
 *   GET    /api/v1/openapi.json                                        the document describing all of it
 *
 * Thin: what they ask (requests.ts: anything malformed is answered 422
 * before GitHub is asked anything, so that bad input is never taken for an
 * outage), who calls (identity.ts), may they (access.ts; a bot only where
 * its token reaches; GitHub's moderation: moderation.ts), then the very LeaseCommand a comment runs
 * (run-command.ts), and its answer (answers.ts). Paths it does not know are left to other
 * handlers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { tenuresOf } from "../leasing/handle-command.js";
import { leaseResultOf } from "../leasing/lease-result.js";
import type { IssueKey } from "../ledger/leases/lease-types.js";
import { type Answer, errorAnswer, leaseAnswer, leaseJson, NOT_FOUND, placeJson, tenureJson } from "./answers.js";
import type { ApiDeps } from "./api-deps.js";
import { bearerToken, reaches } from "./identity.js";
import { nextHandler } from "./next.js";
import openapi from "./openapi.json" with { type: "json" };
import { caller, failure, send } from "./respond.js";
import { idempotencyKey, isAnswer, issueRef, leaseRequest, readBody, releaseParams, verifyRequest, waitParam } from "./requests.js";
import { outsideScope, replayAbout, runCommand } from "./run-command.js";

export type { ApiDeps };

const LEASE_PATH = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/([^/]+)\/lease(\/verify)?$/;
const OPENAPI_PATH = "/api/v1/openapi.json";
const OPENAPI_TEXT = JSON.stringify(openapi);

type Op = "claim" | "renew" | "release" | "status" | "verify";
const OPS: Record<string, Op> = { POST: "claim", PATCH: "renew", DELETE: "release", GET: "status" };


export function apiHandler(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const next = nextHandler(deps);
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = (req.method ?? "GET").toUpperCase();
    if (url.pathname === OPENAPI_PATH) {
      if (method !== "GET" && method !== "HEAD") send(res, errorAnswer(405, "method_not_allowed", "Use GET.", { headers: { allow: "GET, HEAD" } }));
      else res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" }).end(OPENAPI_TEXT);
      return true;
    }
    if (await next(req, res, url, method)) return true;
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
  const asked = op === "claim" || op === "renew" ? leaseRequest(text, op) : op === "verify" ? verifyRequest(text) : releaseParams(url.searchParams);
  if (isAnswer(asked)) return asked;
  const key = op === "status" || op === "verify" ? undefined : idempotencyKey(req);
  if (isAnswer(key)) return key;
  const wait = op === "claim" ? waitParam(url.searchParams.get("wait")) : false;
  if (isAnswer(wait)) return wait;

  const who = await caller(deps, req, token);
  if (isAnswer(who)) return who;

  const repo = await deps.access.repo(token, ref.owner, ref.name);
  if (!repo) return NOT_FOUND;
  const full = `${repo.owner}/${repo.name}`;
  const issueKey: IssueKey = { repoId: repo.id, repo: full, issue: ref.issue };
  const now = deps.clock();
  // A bot acts only where its token reaches: elsewhere it is another installation of a shared account, another holder.
  const outside = op !== "status" && !reaches(who, repo.id);

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
    const valid =
      !outside && lease !== null && lease.token === asking && lease.holder.id === who.id && (lease.holder.instance ?? null) === (instance ?? null);
    return { status: valid ? 200 : 409, body: { valid, lease: lease ? leaseJson(full, ref.issue, lease) : null } };
  }

  if (outside) return outsideScope(who, full);
  const { ttl = null, instance, note } = asked as { ttl?: number | null; instance?: string; note?: string };
  // Scoped to the caller, the operation and the issue: the same key sent for another issue is another request. (Only
  // one installation of a bot reaches the issue's repository, so its account id names it here.)
  const delivery = key === undefined ? undefined : `api:${who.id}:${op}${wait ? "-wait" : ""}:${repo.id}#${ref.issue}:${instance ?? ""}:${key}`;
  if (delivery !== undefined) {
    const first = await deps.ledger.recorded(delivery);
    if (first !== null) {
      const replay = leaseResultOf(first, true, issueKey);
      return leaseAnswer(full, ref.issue, replay, replay.outcome === "acquired" ? await replayAbout(deps, token, repo, ref.issue) : undefined);
    }
  }
  const result = await deps.track(() => runCommand(deps, { token, repo, ref, who, op, ttl, instance, delivery, now, wait, ...(note !== undefined ? { note } : {}) }));
  if (isAnswer(result)) return result;
  deps.log.info(
    { repo: full, issue: ref.issue, op, outcome: result.outcome, login: who.login, instance, duplicate: result.duplicate },
    "API command",
  );
  return leaseAnswer(full, ref.issue, result, result.about);
}

