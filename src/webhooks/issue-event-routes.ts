/**
 * Wiring of the events that end or restore a lease without a command:
 * closing (issues and pull requests), a transferred or deleted issue, and a
 * label removed by hand (on an issue or a pull request); and of an issue's
 * assignments, read as claims and releases with `assignment: claims`. Each
 * payload is reduced to a plain value for the handlers in
 * handle-issue-event.ts and handle-assignment.ts.
 */
import type { Context } from "probot";
import type { WebhookRouter } from "./webhook-router.js";
import type { ConfigResult } from "../config/config.js";
import { handleIssueClosed, handleIssueGone, handleLabelRemoved, type IssueEvent } from "../leasing/handle-issue-event.js";
import { type AssignmentEvent, handleAssigned, handleUnassigned } from "../leasing/handle-assignment.js";
import { octokitPort, type PortOptions } from "../github/octokit-port.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";

export interface IssueEventDeps {
  ledger: LeaseBook & LeaseReads & Reflections;
  clock: () => number;
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  rememberRepo: (repoId: number, full: string, installation: number) => Promise<void>;
  config: (context: Context, repoId: number) => Promise<ConfigResult>;
  /** An account seen in an event, with its current login (renamed holders). */
  seen: (repoId: number, account: Holder) => Promise<void>;
  /** Something was queued: apply the outbox. */
  kick: () => void;
  /** Options of the GitHub port the handlers read through (metrics). */
  port?: PortOptions;
}

interface Payload {
  repository: { id: number; full_name: string; name: string; owner: { login: string } };
  installation?: { id: number };
  sender: { id: number; login: string; type?: string };
}

/** GitHub's ISO time as ms, or undefined when absent or unreadable (then no time guard applies). */
export function eventTime(iso: string | null | undefined): number | undefined {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

export function routeIssueEvents(app: WebhookRouter, deps: IssueEventDeps): void {
  const { ledger, clock, track } = deps;

  /** The common part of every event here; null when it came without an installation. */
  const base = async (id: string, payload: Payload, issue: number, at: number | undefined): Promise<IssueEvent | null> => {
    const { repository, installation, sender } = payload;
    if (!installation) return null;
    const ev: IssueEvent = {
      delivery: id,
      installation: installation.id,
      repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
      issue,
      actor: { id: sender.id, login: sender.login },
      at,
    };
    await deps.seen(ev.repo.id, ev.actor);
    return ev;
  };

  /** An issue or a pull request was closed: its lease ends, if it is still the tenure the close was about. */
  const closed = (context: Context, id: string, payload: Payload, issue: number, merged: boolean, closedAt: string | null | undefined) =>
    track(async () => {
      const ev = await base(id, payload, issue, eventTime(closedAt));
      if (!ev) return;
      await deps.rememberRepo(payload.repository.id, payload.repository.full_name, ev.installation);
      const issueOpen = async () => (await octokitPort(context.octokit, deps.port).issue({ owner: ev.repo.owner, repo: ev.repo.name }, issue))?.state === "open";
      if (await handleIssueClosed({ ...ev, merged }, { ledger, now: clock(), issueOpen })) deps.kick();
    });
  app.on("issues.closed", (context) => {
    const issue = context.payload.issue as { number: number; closed_at?: string | null; pull_request?: { merged_at?: string | null } };
    return closed(context, context.id, context.payload, issue.number, Boolean(issue.pull_request?.merged_at), issue.closed_at);
  });
  // GitHub sends no `issues.closed` for a pull request: closing or merging one ends its lease here.
  // The lease check handles the same delivery, hence a delivery key of this handler's own.
  app.on("pull_request.closed", (context) => {
    const pr = context.payload.pull_request;
    return closed(context, `${context.id}/close`, context.payload, pr.number, Boolean(pr.merged), pr.closed_at);
  });

  app.on(["issues.transferred", "issues.deleted"], (context) =>
    track(async () => {
      const ev = await base(context.id, context.payload, context.payload.issue.number, undefined);
      if (ev && (await handleIssueGone(ev, { ledger, now: clock() }))) deps.kick();
    }),
  );

  /** A label taken off by hand, on an issue or a pull request alike (a pull request is an issue to labels). */
  const unlabeled = (context: Context, payload: Payload & { label?: { name: string } }, issue: number, updatedAt: string | undefined) =>
    track(async () => {
      const { label, sender, repository } = payload;
      if (!label || sender.type === "Bot") return;
      const ev = await base(context.id, payload, issue, eventTime(updatedAt));
      if (!ev) return;
      const port = octokitPort(context.octokit, deps.port);
      const repo = { owner: ev.repo.owner, repo: ev.repo.name };
      const handled = await handleLabelRemoved(
        { ...ev, label: label.name },
        {
          ledger,
          now: clock(),
          config: () => deps.config(context, repository.id),
          permission: (login) => port.permission(repo, login),
        },
      );
      if (handled) deps.kick();
    });
  app.on("issues.unlabeled", (context) =>
    unlabeled(context, context.payload, context.payload.issue.number, context.payload.issue.updated_at),
  );
  app.on("pull_request.unlabeled", (context) =>
    unlabeled(context, context.payload, context.payload.pull_request.number, context.payload.pull_request.updated_at),
  );

  /**
   * An issue's assignee added or removed (`assignment: claims`). What apps
   * and bots do is never read: this app assigns and unassigns holders itself
   * (`assign: true`), and its own acts must not come back as commands; a bot
   * takes a lease with `/claim` or the API. Costs no request then.
   */
  app.on(["issues.assigned", "issues.unassigned"], (context) =>
    track(async () => {
      const { issue, assignee, sender, repository } = context.payload;
      if (!assignee || sender.type === "Bot") return;
      const common = await base(context.id, context.payload, issue.number, eventTime(issue.updated_at));
      if (!common) return;
      await deps.seen(repository.id, { id: assignee.id, login: assignee.login });
      const { delivery, installation, repo, actor, at } = common;
      const createdAt = eventTime(issue.created_at);
      const ev: AssignmentEvent = {
        delivery,
        installation,
        repo,
        issue: {
          number: issue.number,
          state: issue.state,
          labels: (issue.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
          ...(createdAt !== undefined ? { createdAt } : {}),
          ...(issue.user ? { authorId: issue.user.id } : {}),
        },
        sender: actor,
        assignee: { id: assignee.id, login: assignee.login, type: assignee.type ?? "User" },
        ...(at !== undefined ? { at } : {}),
      };
      const port = octokitPort(context.octokit, deps.port);
      const handle = context.payload.action === "assigned" ? handleAssigned : handleUnassigned;
      const handled = await handle(ev, {
        ledger,
        now: clock(),
        config: () => deps.config(context, repository.id),
        permission: (login) => port.permission({ owner: repo.owner, repo: repo.name }, login),
      });
      if (!handled || handled.duplicate) return;
      await deps.rememberRepo(repository.id, repository.full_name, installation);
      deps.kick();
    }),
  );
}
