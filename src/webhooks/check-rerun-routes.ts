/**
 * "Re-run" on one of the app's check runs: GitHub sends `check_run.rerequested`
 * to the app that made the run. The config check reads the file at the
 * run's commit again and posts a new run (a file it `_extends` may have
 * changed since); the lease check of each pull request the run names is
 * queued again, as when the pull request changes. A run of another app, or
 * of another name, is not the app's to run. GitHub names only the
 * repository's own pull requests in the payload: a fork's is checked again
 * by its next push or edit. A run on a fork's commit (GitHub leaves its
 * suite's `head_branch` null) is read with the fork's gate, as its pull
 * request's was (config/fork-extends.ts).
 */
import type { WebhookRouter } from "./webhook-router.js";
import { CHECK_NAME } from "../checks/lease-check.js";
import { CONFIG_CHECK_NAME } from "../config/config-check-run.js";
import { readConfigFilesAt } from "../config/files.js";
import { forkExtendsGate } from "../config/fork-extends.js";
import { installationGitHub } from "../github/installation-port.js";
import { handleConfigCheck } from "../leasing/handle-config-check.js";
import { rerunPullCheck } from "../leasing/handle-pull-request.js";
import type { TargetPolicy } from "../events/target-guard.js";
import type { LeaseBook } from "../ledger/leases/lease-roles.js";

export interface CheckRerunDeps {
  ledger: Pick<LeaseBook, "note" | "recorded">;
  clock: () => number;
  /** This app's id: a run that another app made is left alone. */
  appId: number | undefined;
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  /** Something was queued: apply the outbox. */
  kick: () => void;
  /** Where outgoing webhooks may go (the operator's policy), as configs are checked. */
  targets: TargetPolicy;
}

export function routeCheckReruns(app: WebhookRouter, deps: CheckRerunDeps): void {
  const { ledger, clock, track } = deps;
  app.on("check_run.rerequested", (context) =>
    track(async () => {
      const { check_run: run, repository, installation, sender } = context.payload;
      if (!installation || !sender || !repository.owner) return;
      if (deps.appId !== undefined && run.app?.id !== deps.appId) return;
      const repo = { id: repository.id, owner: repository.owner.login, name: repository.name };
      const actor = { id: sender.id, login: sender.login };
      let queued = false;
      if (run.name === CONFIG_CHECK_NAME) {
        const pull = run.pull_requests[0]?.number;
        const ev = { installation: installation.id, repo, sha: run.head_sha, actor, rerun: context.id, ...(pull !== undefined ? { pull } : {}) };
        // Null (or absent: not told) unless the commit is on one of the repository's own branches.
        const fromFork = (run.check_suite?.head_branch ?? null) === null;
        const github = installationGitHub(context.octokit);
        const gate = fromFork ? forkExtendsGate(github, { owner: repo.owner, repo: repo.name }) : undefined;
        const read = () => readConfigFilesAt(github, repo.owner, repo.name, run.head_sha, gate);
        queued = await handleConfigCheck(ev, { ledger, now: clock(), changes: async () => true, read, targets: deps.targets });
      } else if (run.name === CHECK_NAME) {
        for (const pr of run.pull_requests) {
          const key = { repoId: repo.id, repo: `${repo.owner}/${repo.name}`, issue: pr.number };
          queued = (await rerunPullCheck(ledger, installation.id, key, actor, `${context.id}/${pr.number}`, clock())) || queued;
        }
      }
      if (queued) deps.kick();
    }),
  );
}
