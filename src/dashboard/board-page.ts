/**
 * `GET /leases` and `GET /leases/{owner}/{repo}`: the board as HTML, for
 * the viewer of the request's session (or anonymous). A session whose list
 * of private repositories is older than ten minutes goes through the
 * sign-in again first, which GitHub answers without a prompt for an app the
 * user has authorized.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "probot";
import type { BoardReads } from "../ledger/board/board-roles.js";
import { redirect, sendPage } from "./http.js";
import { loadBoard, parseFilters, type Viewer } from "./queries.js";
import { type PageContext, renderBoard, renderMessage } from "./render.js";
import type { DashboardSettings } from "./settings.js";
import { sessionViewer } from "./viewer.js";

export interface BoardPageDeps {
  ledger: BoardReads;
  clock: () => number;
  log: Logger;
  settings: DashboardSettings;
}

export async function boardPage(req: IncomingMessage, res: ServerResponse, url: URL, pathRepo: string | undefined, deps: BoardPageDeps): Promise<void> {
  const now = deps.clock();
  const here = `${url.pathname}${url.search}`;
  const signInAgain = `/login?return_to=${encodeURIComponent(here)}`;
  const session = sessionViewer(req, deps.settings, now);
  if (session.kind === "stale") return redirect(res, signInAgain);
  const viewer: Viewer | null = session.kind === "fresh" ? session.viewer : null;
  const ctx: PageContext = { now, web: deps.settings.github.web, viewer, signIn: deps.settings.oauth !== null, here };
  if (viewer?.partial) ctx.notices = ["GitHub listed more private repositories than this session can hold: some of yours may be missing."];

  const parsed = parseFilters(url.searchParams, pathRepo);
  if (!parsed.ok) return sendPage(res, 400, renderMessage(ctx, "Not a filter this board knows", `The ${parsed.error}.`));
  const f = parsed.value;
  let result;
  try {
    result = await loadBoard(deps.ledger, f, viewer, now);
  } catch (error) {
    deps.log.error({ err: error }, "board: the ledger did not answer");
    return sendPage(res, 503, renderMessage(ctx, "The board is unavailable", "The ledger did not answer. Try again in a moment."));
  }
  if (result.kind === "sign_in") {
    if (deps.settings.oauth) return redirect(res, signInAgain);
    return sendPage(res, 401, renderMessage(ctx, "Nobody is signed in", "Your leases need you signed in, and this board has no sign-in set up."));
  }
  // A private repository the viewer may not see gets the same answer as one that is not there.
  if (result.kind === "not_found") return sendPage(res, 404, renderMessage(ctx, "No such repository here", `There are no leases to show for ${f.repo}.`));
  sendPage(
    res,
    200,
    renderBoard(ctx, f, { leases: result.page.leases, more: result.page.more, total: result.page.total, panels: result.panels!, repo: result.repo?.repo ?? null }),
  );
}
