/**
 * Wiring of pull requests for the lease check: an opened, edited, pushed,
 * reopened or closed pull request has its check queued (or forgotten once
 * closed) by handle-pull-request.ts, from the payload reduced to a plain
 * value. Its author, and whoever acted on it, are accounts seen with their
 * current logins (renamed holders).
 */
import { handlePullRequest } from "../leasing/handle-pull-request.js";
import type { IssueEventDeps } from "./issue-event-routes.js";
import type { WebhookRouter } from "./webhook-router.js";

export type PullRequestRouteDeps = Pick<IssueEventDeps, "ledger" | "clock" | "track" | "config" | "seen" | "kick">;

export function routePullRequests(app: WebhookRouter, deps: PullRequestRouteDeps): void {
  const { ledger, clock, track } = deps;
  app.on(
    ["pull_request.opened", "pull_request.edited", "pull_request.synchronize", "pull_request.reopened", "pull_request.closed"],
    (context) =>
      track(async () => {
        const { pull_request: pr, repository, installation, sender } = context.payload;
        if (!installation || !pr.user) return;
        await deps.seen(repository.id, { id: pr.user.id, login: pr.user.login });
        if (sender && sender.id !== pr.user.id) await deps.seen(repository.id, { id: sender.id, login: sender.login });
        const queued = await handlePullRequest(
          {
            delivery: context.id,
            installation: installation.id,
            repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
            number: pr.number,
            body: pr.body ?? "",
            author: { id: pr.user.id, login: pr.user.login },
            headSha: pr.head.sha,
            open: pr.state === "open",
          },
          { ledger, now: clock(), config: () => deps.config(context, repository.id) },
        );
        if (queued) deps.kick();
      }),
  );
}
