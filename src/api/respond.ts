/** How every API answer is written, who calls (or the answer that refuses them), and what a failure is answered. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiDeps } from "./api-deps.js";
import { type Answer, errorAnswer } from "./answers.js";
import { clientAddress } from "./client-address.js";
import { callerKey, GitHubUnavailable, type Identity } from "./identity.js";
import { RateLimited } from "./rate-limit.js";

/**
 * Who the token is, asked of GitHub (cached), within their rate limit; else the 401 or 429 to answer. A bot's limit is
 * its installation's (callerKey): another installation of the same app, on the same account, cannot empty it.
 */
export async function caller(deps: Pick<ApiDeps, "identities" | "limiter" | "trustProxyHops">, req: IncomingMessage, token: string): Promise<Identity | Answer> {
  const who = await deps.identities.who(token, clientAddress(req, deps.trustProxyHops));
  if (!who) return errorAnswer(401, "unauthorized", "GitHub does not accept this token.", { headers: { "www-authenticate": "Bearer" } });
  const wait = deps.limiter.take(callerKey(who));
  if (wait > 0) {
    return errorAnswer(429, "rate_limited", `Too many requests from ${who.login}; try again in ${wait} s.`, { headers: { "retry-after": String(wait) } });
  }
  return who;
}

export function send(res: ServerResponse, answer: Answer): void {
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

/** Too many tokens GitHub refused from one address (429), an error of GitHub's (502, retry), shutting down (503, retry), or a fault of ours or the database's (500, logged). */
export function failure(deps: Pick<ApiDeps, "log">, error: unknown, op: string): Answer {
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
