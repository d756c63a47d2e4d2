/**
 * Wiring of comments: a command in a new or edited comment runs as its
 * author (handle-command.ts); a new comment that is no command is the
 * author's activity (handle-activity.ts). The payload is reduced to a plain
 * value; the app's own comments are never answered.
 */
import type { WebhookRouter } from "./webhook-router.js";
import { handleActivity } from "../leasing/handle-activity.js";
import { type CommentEvent, handleComment } from "../leasing/handle-command.js";
import type { IssueEventDeps } from "./issue-event-routes.js";
import { octokitPort } from "../github/octokit-port.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import { parseMarker } from "../github/reply-marker.js";

/** What the issue events' routes need, and the app's id and a log. */
export interface CommentRouteDeps extends IssueEventDeps {
  /** Commands, and the commenter's activity renewing their leases. */
  ledger: IssueEventDeps["ledger"] & FollowLinks;
  /** This app's id, to recognise its own comments. */
  appId: number | undefined;
  /** This app's slug, for the mention form (`@slug claim`); asked of GitHub only where a repository reads mentions. */
  appSlug?: () => Promise<string | null>;
  log: { info: (obj: object, msg: string) => void };
}

interface CommentLike {
  body?: string | null;
  user?: { login?: string; type?: string } | null;
  performed_via_github_app?: { id?: number } | null;
}

/** A comment this app wrote: by its app id, or a bot comment carrying its marker. Never answered. */
export function isOwnComment(comment: CommentLike, appId: number | undefined): boolean {
  if (appId !== undefined && comment.performed_via_github_app?.id === appId) return true;
  return comment.user?.type === "Bot" && parseMarker(comment.body ?? "") !== null;
}

export function routeComments(app: WebhookRouter, deps: CommentRouteDeps): void {
  const { ledger, clock, track } = deps;
  app.on(["issue_comment.created", "issue_comment.edited"], (context) =>
    track(async () => {
      const { comment, issue, repository, installation } = context.payload;
      if (!installation || !comment.user || isOwnComment(comment, deps.appId)) return;
      // An edit runs as the comment's author only when they made it: a
      // maintainer fixing a typo in someone's comment must not run its
      // command as that person, nor as themselves (they did not write it).
      if (context.payload.action === "edited" && context.payload.sender.id !== comment.user.id) return;
      const ev: CommentEvent = {
        delivery: context.id,
        installation: installation.id,
        repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
        issue: {
          number: issue.number,
          state: issue.state,
          labels: (issue.labels ?? []).map((l) => (typeof l === "string" ? l : l.name ?? "")),
          ...(Number.isFinite(Date.parse(issue.created_at)) ? { createdAt: Date.parse(issue.created_at) } : {}),
          ...(issue.user ? { authorId: issue.user.id } : {}),
        },
        author: {
          id: comment.user.id,
          login: comment.user.login,
          type: comment.user.type ?? "User",
          association: comment.author_association,
        },
        body: comment.body ?? "",
        commentId: comment.id,
        previousBody:
          context.payload.action === "edited" ? ((context.payload as { changes?: { body?: { from?: string } } }).changes?.body?.from ?? null) : undefined,
      };
      // Before the command: a renamed holder's `/claim` or `/release` then finds their lease under the new login.
      await deps.seen(repository.id, { id: comment.user.id, login: comment.user.login });
      const port = octokitPort(context.octokit, deps.port);
      const handled = await handleComment(ev, {
        ledger,
        now: clock(),
        config: () => deps.config(context, repository.id),
        permission: (login) => port.permission({ owner: ev.repo.owner, repo: ev.repo.name }, login),
        account: (login) => port.account(login),
        ...(deps.appSlug ? { appSlug: deps.appSlug } : {}),
      });
      // A new comment that is no command is activity: the holder's renews their lease, silently (handle-activity.ts).
      if (!handled && context.payload.action === "created") {
        const renewed = await handleActivity(
          { delivery: context.id, repo: ev.repo, number: issue.number, actor: { id: comment.user.id, login: comment.user.login } },
          { ledger, now: clock(), config: () => deps.config(context, repository.id) },
        );
        if (renewed.length > 0) deps.log.info({ delivery: context.id, repo: repository.full_name, issues: renewed.map((l) => l.issue) }, "renewed by activity");
      }
      if (!handled) return;
      await deps.rememberRepo(repository.id, repository.full_name, installation.id);
      deps.log.info({ delivery: context.id, repo: repository.full_name, issue: issue.number, ...handled }, "command");
      deps.kick();
    }),
  );
}
