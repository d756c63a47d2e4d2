/**
 * Wiring of the config check (leasing/handle-config-check.ts): a push to any
 * branch whose commits add or change `.github/issue-leases.yml`, and a pull
 * request opened, synchronized or reopened whose files include it. Each
 * payload is reduced to a plain value; the file is read at the commit
 * through the delivery's own Octokit, as the config is.
 *
 * The lease check handles the same pull request deliveries; this handler's
 * record is keyed by the commit instead (see handle-config-check.ts).
 *
 * A pull request from a fork (its head repository another, or deleted) is
 * checked with the fork's gate (config/fork-extends.ts): its check run is
 * public, and its file is anyone's to write.
 */
import type { Context } from "probot";
import type { WebhookRouter } from "./webhook-router.js";
import { pullChangesConfig, pushChangesConfig } from "../config/config-changes.js";
import { type ExtendsGate, readConfigFilesAt } from "../config/files.js";
import { forkExtendsGate } from "../config/fork-extends.js";
import { installationGitHub } from "../github/installation-port.js";
import { type ConfigCheckEvent, handleConfigCheck } from "../leasing/handle-config-check.js";
import type { TargetPolicy } from "../events/target-guard.js";
import type { LeaseBook } from "../ledger/leases/lease-roles.js";

export interface ConfigCheckRouteDeps {
  ledger: Pick<LeaseBook, "note" | "recorded">;
  clock: () => number;
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  /** Something was queued: apply the outbox. */
  kick: () => void;
  /** Where outgoing webhooks may go (the operator's policy), as configs are checked. */
  targets: TargetPolicy;
}

interface Payload {
  repository: { id: number; name: string; owner: { login: string } | null };
  installation?: { id: number };
  sender?: { id: number; login: string } | null;
}

export function routeConfigChecks(app: WebhookRouter, deps: ConfigCheckRouteDeps): void {
  const { ledger, clock, track } = deps;

  const check = (context: Context, payload: Payload, sha: string, changes: () => Promise<boolean>, pull?: { number: number; fromFork: boolean }) =>
    track(async () => {
      const { repository, installation, sender } = payload;
      if (!installation || !sender || !repository.owner) return;
      const ev: ConfigCheckEvent = {
        installation: installation.id,
        repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
        sha,
        ...(pull !== undefined ? { pull: pull.number } : {}),
        actor: { id: sender.id, login: sender.login },
      };
      const github = installationGitHub(context.octokit);
      const gate: ExtendsGate | undefined = pull?.fromFork ? forkExtendsGate(github, { owner: ev.repo.owner, repo: ev.repo.name }) : undefined;
      const read = () => readConfigFilesAt(github, ev.repo.owner, ev.repo.name, sha, gate);
      if (await handleConfigCheck(ev, { ledger, now: clock(), changes, read, targets: deps.targets })) deps.kick();
    });

  app.on("push", (context) => {
    const p = context.payload;
    // Told by the payload: a push that does not touch the file costs no request, and no transaction.
    if (!pushChangesConfig(p)) return undefined;
    return check(context, p, p.after, async () => true);
  });

  app.on(["pull_request.opened", "pull_request.synchronize", "pull_request.reopened"], (context) => {
    const p = context.payload;
    const pr = p.pull_request;
    const changes = () => pullChangesConfig(installationGitHub(context.octokit), p.repository.owner.login, p.repository.name, pr.number, pr.changed_files ?? 0);
    const fromFork = pr.head.repo === null || pr.head.repo.id !== p.repository.id;
    return check(context, p, pr.head.sha, changes, { number: pr.number, fromFork });
  });
}
