/**
 * Wiring of the events by which a lease follows the work, besides those of
 * the lease check (handle-pull-request.ts) and comments (comment-routes.ts): the
 * holder's pushes and reviews on a pull request, which renew their lease
 * (handle-activity.ts), and exempt labels added or removed
 * (handle-exempt-label.ts). Each payload is reduced to a plain value.
 *
 * Another handler records the same delivery id for some of these events
 * (the lease check, a label removed by hand), so these record a key of
 * their own derived from it (`<id>/activity`, `<id>/exempt`).
 */
import type { Context } from "probot";
import type { WebhookRouter } from "./webhook-router.js";
import type { ConfigResult } from "../config/config.js";
import { handleActivity } from "../leasing/handle-activity.js";
import { handleExemptLabel } from "../leasing/handle-exempt-label.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";

export interface WorkRouteDeps {
  ledger: LeaseReads & FollowLinks;
  clock: () => number;
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  config: (context: Context, repoId: number) => Promise<ConfigResult>;
  /** This app's id: what it did itself is never activity. */
  appId: number | undefined;
  log: { info: (obj: object, msg: string) => void };
}

interface Repository {
  id: number;
  name: string;
  full_name: string;
  owner: { login: string };
}

type Account = { id: number; login: string } | null | undefined;

const labelNames = (labels: Array<string | { name?: string }> | undefined): string[] =>
  (labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? "")));

export function routeWork(app: WebhookRouter, deps: WorkRouteDeps): void {
  const { ledger, clock, track } = deps;

  /** `actor` did something on pull request `number`: renew what their activity renews. */
  const activity = (context: Context, repository: Repository, number: number, actor: Account) =>
    track(async () => {
      if (!actor) return;
      const renewed = await handleActivity(
        {
          delivery: `${context.id}/activity`,
          repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
          number,
          actor: { id: actor.id, login: actor.login } satisfies Holder,
        },
        { ledger, now: clock(), config: () => deps.config(context, repository.id) },
      );
      if (renewed.length > 0) {
        deps.log.info({ delivery: context.id, repo: repository.full_name, issues: renewed.map((l) => l.issue) }, "renewed by activity");
      }
    });

  // A push to the pull request: its sender pushed.
  app.on("pull_request.synchronize", (context) =>
    activity(context, context.payload.repository, context.payload.pull_request.number, context.payload.sender),
  );
  app.on("pull_request_review.submitted", (context) =>
    activity(context, context.payload.repository, context.payload.pull_request.number, context.payload.review.user),
  );
  app.on("pull_request_review_comment.created", (context) => {
    const { comment } = context.payload;
    const viaApp = (comment as { performed_via_github_app?: { id?: number } | null }).performed_via_github_app?.id;
    if (deps.appId !== undefined && viaApp === deps.appId) return undefined;
    return activity(context, context.payload.repository, context.payload.pull_request.number, comment.user);
  });

  /** A label added to or removed from issue (or pull request) `issue`: an exempt label holds its lease, or lets it go. */
  const labelled = (
    context: Context,
    repository: Repository,
    issue: { number: number; labels?: Array<string | { name?: string }> },
    label: { name: string } | undefined,
    sender: { id: number; login: string },
    added: boolean,
  ) =>
    track(async () => {
      if (!label) return;
      const changed = await handleExemptLabel(
        {
          delivery: `${context.id}/exempt`,
          repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
          issue: issue.number,
          actor: { id: sender.id, login: sender.login },
          label: label.name,
          added,
          labels: labelNames(issue.labels),
        },
        { ledger, now: clock(), config: () => deps.config(context, repository.id) },
      );
      if (changed) deps.log.info({ delivery: context.id, repo: repository.full_name, issue: issue.number, added }, "exempt label");
    });
  app.on(["issues.labeled", "issues.unlabeled"], (context) => {
    const p = context.payload;
    return labelled(context, p.repository, p.issue, p.label, p.sender, p.action === "labeled");
  });
  app.on(["pull_request.labeled", "pull_request.unlabeled"], (context) => {
    const p = context.payload;
    return labelled(context, p.repository, p.pull_request, p.label, p.sender, p.action === "labeled");
  });
}
