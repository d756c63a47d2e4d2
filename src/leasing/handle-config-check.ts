/**
 * The config check of a commit: a push or a pull request that changes
 * `.github/issue-leases.yml` gets the check run `issue-leases config` on the
 * pushed commit (or the pull request's head), telling every problem of the
 * file as it is at that commit, with its line and column, or the config in
 * force (config/config-check.ts). The file is read here, on the webhook
 * path; the check run is queued as an effect in one ledger transaction and
 * posted by the outbox (outbox/config-check.ts).
 *
 * One check per commit of a repository: the ledger records it under a key of
 * the commit (`config-check/<repo id>/<sha>`) in place of the delivery id, so
 * that a redelivery, and the push and the pull request event of the same
 * head, queue it once, and the second costs one ledger read and no request.
 */
import { CONFIG_FILE, type UnreadableConfig } from "../config/config.js";
import { checkConfig } from "../config/config-check.js";
import { configCheckRun } from "../config/config-check-run.js";
import type { TargetPolicy } from "../events/target-guard.js";
import type { ConfigFile } from "../config/files.js";
import type { Holder, IssueKey } from "../ledger/leases/lease-types.js";
import type { LeaseBook } from "../ledger/leases/lease-roles.js";
import { configCheckEffect } from "../outbox/effects.js";
import { always } from "../ledger/leases/effect-cases.js";

export interface ConfigCheckEvent {
  installation: number;
  repo: { id: number; owner: string; name: string };
  /** The commit checked: a push's `after`, a pull request's head. */
  sha: string;
  /** The pull request whose event it is (its history records the check); absent for a push (the repository's, issue 0). */
  pull?: number;
  /** Who pushed, or whose pull request event it is. */
  actor: Holder;
  /** The delivery of a "Re-run" of the commit's check (check_run.rerequested): checked again, once per such delivery. */
  rerun?: string;
}

export interface ConfigCheckDeps {
  ledger: Pick<LeaseBook, "note" | "recorded">;
  now: number;
  /** Whether the event changes the file (a pull request's files are read from GitHub only now, when the commit was not checked yet). */
  changes: () => Promise<boolean>;
  /** The file at the commit, and the files it extends; null when the commit has no such file. */
  read: () => Promise<ConfigFile[] | UnreadableConfig | null>;
  /** Where outgoing webhooks may go (the operator's policy); default loopback and private targets refused. */
  targets?: TargetPolicy;
}

/** The key the ledger records a commit's check under. */
export function configCheckKey(repoId: number, sha: string): string {
  return `config-check/${repoId}/${sha}`;
}

/** Queues the commit's config check when the event changes the file. Returns whether it was queued. */
export async function handleConfigCheck(ev: ConfigCheckEvent, deps: ConfigCheckDeps): Promise<boolean> {
  const id = ev.rerun === undefined ? configCheckKey(ev.repo.id, ev.sha) : `${configCheckKey(ev.repo.id, ev.sha)}/rerun/${ev.rerun}`;
  if ((await deps.ledger.recorded(id)) !== null) return false;
  if (!(await deps.changes())) return false;
  const files = await deps.read();
  // The commit has no such file (a later commit of the push removed it): nothing to check.
  if (files === null) return false;
  const run = configCheckRun(checkConfig(files, CONFIG_FILE, deps.targets), ev.sha);
  const key: IssueKey = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.pull ?? 0 };
  const res = await deps.ledger.note(key, ev.actor, deps.now, {
    delivery: id,
    outcome: run.conclusion === "success" ? "config_ok" : "config_invalid",
    effects: always(configCheckEffect(ev.installation, key.repo, run)),
  });
  return !res.duplicate;
}
