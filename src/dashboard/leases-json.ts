/**
 * `GET /api/v1/leases`: the board's JSON twin, for other tools, with the
 * same filters (`repo`, `holder` or `holder=@me`, `label`, `page`) and the
 * same visibility: without a token, public repositories only; with
 * `Authorization: Bearer <GitHub token>` or a signed-in session, also the
 * private repositories that account may see. `holder=@me` needs one of the
 * two (401 otherwise). A bad token is 401 rather than read as anonymous.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "probot";
import { leaseJson as apiLeaseJson, iso } from "../api/answers.js";
import { clientAddress } from "../api/client-address.js";
import { RateLimited } from "../api/rate-limit.js";
import type { BoardReads } from "../ledger/board/board-roles.js";
import type { BoardLease } from "../ledger/board/board-types.js";
import { sendJson } from "./http.js";
import { filterQuery, loadBoard, PAGE_SIZE, parseFilters, type Viewer } from "./queries.js";
import type { DashboardSettings } from "./settings.js";
import { type BearerViewer, bearerToken, sessionViewerOf } from "./viewer.js";

export const LEASES_JSON_PATH = "/api/v1/leases";

export interface LeasesJsonDeps {
  ledger: BoardReads;
  clock: () => number;
  log: Logger;
  settings: DashboardSettings;
  bearer?: BearerViewer;
  /** Proxies whose X-Forwarded-For names the client (client-address.ts). */
  trustProxyHops?: number;
}

/** A lease as the API shows one (answers.ts), with what the board shows beside it. */
export function leaseJson(l: BoardLease, web: string): Record<string, unknown> {
  return {
    ...apiLeaseJson(l.repo, l.issue, l),
    title: l.title,
    labels: l.labels,
    url: `${web}/${l.repo}/issues/${l.issue}`,
    acquired_at: iso(l.acquiredAt),
  };
}

const error = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  sendJson(res, status, { error: { code, message } }, headers);

export async function leasesJson(req: IncomingMessage, res: ServerResponse, url: URL, deps: LeasesJsonDeps): Promise<void> {
  const now = deps.clock();
  const parsed = parseFilters(url.searchParams);
  if (!parsed.ok) return error(res, 422, "invalid_filter", parsed.error);
  const f = parsed.value;

  let viewer: Viewer | null = null;
  const token = bearerToken(req);
  if (token !== null) {
    const challenge = { "www-authenticate": 'Bearer realm="issue-leases"' };
    if (token === "malformed") return error(res, 401, "unauthorized", "Authorization must be `Bearer <GitHub token>`", challenge);
    if (!deps.bearer) return error(res, 401, "unauthorized", "this server does not take bearer tokens on this route yet; leave the header out for public repositories", challenge);
    try {
      viewer = await deps.bearer(token, clientAddress(req, deps.trustProxyHops ?? 0));
    } catch (e) {
      if (e instanceof RateLimited) return error(res, 429, "rate_limited", e.message, { "retry-after": String(e.retryAfter) });
      deps.log.warn({ err: e }, "board: GitHub did not say who a bearer token is");
      return error(res, 502, "github_unavailable", "GitHub did not say who the token is; try again", { "retry-after": "5" });
    }
    if (!viewer) return error(res, 401, "unauthorized", "GitHub did not accept the token", challenge);
  } else {
    viewer = sessionViewerOf(req, deps.settings, now);
  }

  let result;
  try {
    result = await loadBoard(deps.ledger, f, viewer, now, false);
  } catch (e) {
    deps.log.error({ err: e }, "board: the ledger did not answer the listing");
    return error(res, 503, "unavailable", "the ledger did not answer; try again", { "retry-after": "5" });
  }
  if (result.kind === "sign_in") return error(res, 401, "unauthorized", "holder=@me needs a token (Authorization: Bearer <GitHub token>) or a signed-in session");
  if (result.kind === "not_found") return error(res, 404, "not_found", "no repository of that name here");
  const web = deps.settings.github.web;
  sendJson(res, 200, {
    leases: result.page.leases.map((l) => leaseJson(l, web)),
    page: f.page,
    per_page: PAGE_SIZE,
    total: result.page.total,
    next: result.page.more ? `${LEASES_JSON_PATH}${filterQuery(f, f.page + 1)}` : null,
    viewer: viewer ? { login: viewer.login, id: viewer.id } : null,
  });
}
