/**
 * `GET /leases/{owner}/{repo}/ready`: the board's Ready view, for the viewer
 * of the request's session (or anonymous), with the same rule as the board:
 * a private repository the viewer may not see is answered as one that is not
 * there. Signed in, issues assigned to the viewer count as free for them, as
 * `leases/next` counts them for its caller; anonymous, only unassigned ones.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BoardReads } from "../ledger/board/board-roles.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { BoardPageDeps } from "./board-page.js";
import { redirect, sendPage } from "./http.js";
import { type PageContext, renderMessage } from "./render.js";
import { renderReady } from "./render-ready.js";
import { parseReadyView, READY_SHOWN, readyFilter } from "./ready-query.js";
import { sessionViewer } from "./viewer.js";

export interface ReadyPageDeps extends Omit<BoardPageDeps, "ledger"> {
  ledger: Pick<BoardReads, "boardRepo"> & Pick<Inventory, "readyIssues">;
}

export async function readyPage(req: IncomingMessage, res: ServerResponse, url: URL, repoName: string, deps: ReadyPageDeps): Promise<void> {
  const now = deps.clock();
  const here = `${url.pathname}${url.search}`;
  const session = sessionViewer(req, deps.settings, now);
  if (session.kind === "stale") return redirect(res, `/login?return_to=${encodeURIComponent(here)}`);
  const viewer = session.kind === "fresh" ? session.viewer : null;
  const ctx: PageContext = { now, web: deps.settings.github.web, viewer, signIn: deps.settings.oauth !== null, here };

  const parsed = parseReadyView(url.searchParams);
  if (!parsed.ok) return sendPage(res, 400, renderMessage(ctx, "Not a filter this board knows", `The ${parsed.error}.`));
  const notThere = () => sendPage(res, 404, renderMessage(ctx, "No such repository here", `There are no issues to show for ${repoName}.`));
  try {
    const repo = await deps.ledger.boardRepo(repoName);
    if (!repo || (repo.private !== false && !(viewer?.visible ?? []).includes(repo.repoId))) return notThere();
    const page = await deps.ledger.readyIssues({ ...readyFilter(parsed.value, viewer?.id ?? null), repoIds: [repo.repoId], limit: READY_SHOWN }, now);
    sendPage(res, 200, renderReady(ctx, repo.repo, parsed.value, page));
  } catch (error) {
    deps.log.error({ err: error }, "board: the ledger did not answer");
    sendPage(res, 503, renderMessage(ctx, "The board is unavailable", "The ledger did not answer. Try again in a moment."));
  }
}
