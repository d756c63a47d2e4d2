/**
 * What the board remembers from webhook payloads, so that drawing a page
 * reads no GitHub: each repository's `private` flag (every event carries
 * its repository), and the title and labels of leased issues (every issue,
 * comment and pull request event carries its issue). A card is kept for an
 * issue the ledger knows (leased now or before) or one whose comment claims
 * it; other issues leave no trace.
 *
 * And what it forgets: the repositories an installation no longer serves
 * (the app uninstalled or suspended, repositories removed from it, a
 * repository deleted) become unknown, counted as private, their titles and
 * labels dropped, since no event would tell the board if they were made
 * private later; a deleted or transferred issue's title and labels are
 * dropped for good. Events come in any order: a flag older than the one
 * stored is ignored (the ledger's visibility-applies.ts).
 *
 * Each replica remembers what it last wrote, so a repository's events and
 * an issue's unchanged labels cost no write; the ledger also writes nothing
 * when nothing changed. A failure is logged and the delivery goes on: the
 * next event writes it again, and a repository not yet seen counts as
 * private meanwhile.
 */
import type { Logger } from "probot";
import { findCommandLines } from "../commands/command-lines.js";
import { isParseError, parseCommand } from "../commands/parse-command.js";
import { BoundedMap } from "../github/bounded-map.js";
import type { BoardMemory } from "../ledger/board/board-roles.js";
import type { IssueCard, RepoForget } from "../ledger/board/board-types.js";

/** Stamps kept per replica before the memory starts over. */
const MAX_REMEMBERED = 50_000;

interface RepoRef {
  id?: number;
  full_name?: string;
  private?: boolean;
}

interface Payload {
  action?: string;
  installation?: { id?: number };
  repository?: RepoRef & { updated_at?: string | number | null };
  /** installation.created and .deleted. */
  repositories?: RepoRef[];
  repositories_added?: RepoRef[];
  repositories_removed?: RepoRef[];
  issue?: { number?: number; title?: string; labels?: Array<{ name?: string } | string> };
  pull_request?: { number?: number; title?: string; labels?: Array<{ name?: string } | string> };
  comment?: { body?: string | null };
}

export interface RememberDeps {
  ledger: BoardMemory;
  clock: () => number;
  log: Logger;
}

function bounded(map: BoundedMap<string>, key: string, stamp: string): boolean {
  if (map.get(key) === stamp) return false;
  map.set(key, stamp);
  return true;
}

/** The card an event shows of its issue (or pull request), if any. */
export function cardOf(p: Payload): IssueCard | null {
  const repoId = p.repository?.id;
  const item = p.issue ?? p.pull_request;
  if (typeof repoId !== "number" || !item || typeof item.number !== "number" || typeof item.title !== "string") return null;
  const labels = (item.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== "");
  return { repoId, issue: item.number, title: item.title, labels };
}

/** `repository.updated_at` as ms (an ISO time; seconds when a number), or null when the payload has none. */
export function updatedAtOf(value: string | number | null | undefined): number | null {
  const ms = typeof value === "number" ? value * 1000 : typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** The repositories an event says the installation no longer serves, or null. `unsuspend` forgets their flags' times too. */
export function forgottenBy(name: string, p: Payload): RepoForget | null {
  const installation = p.installation?.id;
  if (typeof installation !== "number") return null;
  const ids = (refs: RepoRef[] | undefined) => (refs ?? []).map((r) => r.id).filter((id): id is number => typeof id === "number");
  if (name === "installation" && (p.action === "deleted" || p.action === "suspend")) return { installation, repoIds: "all", times: false };
  // No event reports the flags again after a suspension: the next event of each repository sets its flag, whatever its time.
  if (name === "installation" && p.action === "unsuspend") return { installation, repoIds: "all", times: true };
  if (name === "installation_repositories" && p.action === "removed") return { installation, repoIds: ids(p.repositories_removed), times: false };
  if (name === "repository" && p.action === "deleted") return { installation, repoIds: ids(p.repository ? [p.repository] : []), times: false };
  return null;
}

/** The repositories an event reports as now served, with their flags (no time of their own). */
function reportedBy(name: string, p: Payload): RepoRef[] {
  if (name === "installation" && p.action === "created") return p.repositories ?? [];
  if (name === "installation_repositories" && p.action === "added") return p.repositories_added ?? [];
  return [];
}

/**
 * A comment whose command claims the issue, or may (a slash word that a
 * repository's alias could make a `/claim`, such as `/take`): a lease may
 * follow, so its card is kept.
 */
function claims(p: Payload): boolean {
  const body = p.comment?.body;
  if (!body || p.action === "deleted") return false;
  const command = parseCommand(body);
  if (command !== null) return !isParseError(command) && command.kind === "claim";
  return findCommandLines(body, { anyWord: true }).some((line) => line.line.startsWith("/"));
}

export function rememberer(deps: RememberDeps): (name: string, payload: unknown) => Promise<void> {
  const repos = new BoundedMap<string>(MAX_REMEMBERED);
  const cards = new BoundedMap<string>(MAX_REMEMBERED);
  const { ledger } = deps;

  const visibility = async (repo: RepoRef, installation: number, updatedAt: number | null, reportsChange: boolean) => {
    if (typeof repo.id !== "number" || typeof repo.full_name !== "string" || typeof repo.private !== "boolean") return;
    const stamp = `${repo.private}|${repo.full_name}|${installation}|${updatedAt}`;
    // A report is written whatever this replica last wrote: another replica may have forgotten the repository since.
    if (!bounded(repos, String(repo.id), stamp) && !reportsChange) return;
    try {
      await ledger.rememberVisibility({ repoId: repo.id, repo: repo.full_name, installation, private: repo.private, updatedAt, reportsChange }, deps.clock());
    } catch (error) {
      repos.delete(String(repo.id));
      throw error;
    }
  };

  return async (name, payload) => {
    const p = payload as Payload;
    const repo = p.repository;
    try {
      const forget = forgottenBy(name, p);
      if (forget) {
        // What this replica last wrote may be about to be true again: it writes on the next event.
        repos.clear();
        cards.clear();
        await ledger.forgetRepos(forget, deps.clock());
        return;
      }
      const installation = p.installation?.id;
      if (typeof installation === "number") {
        for (const reported of reportedBy(name, p)) await visibility(reported, installation, null, true);
        if (repo) {
          const reportsChange = name === "repository" && (p.action === "privatized" || p.action === "publicized");
          await visibility(repo, installation, updatedAtOf(repo.updated_at), reportsChange);
        }
      }
      const card = cardOf(p);
      if (!card) return;
      const key = `${card.repoId}#${card.issue}`;
      if (name === "issues" && (p.action === "deleted" || p.action === "transferred")) {
        cards.delete(key);
        await ledger.dropCard({ repoId: card.repoId, issue: card.issue }, deps.clock());
        return;
      }
      const create = name === "issue_comment" && claims(p);
      // Remembered only once the ledger kept it: an issue with no lease yet is asked about again.
      if (bounded(cards, key, JSON.stringify([card.title, card.labels])) || create) {
        let kept = false;
        try {
          kept = await ledger.rememberCard(card, deps.clock(), create);
        } finally {
          if (!kept) cards.delete(key);
        }
      }
    } catch (error) {
      deps.log.warn({ err: error, event: name, repo: repo?.full_name }, "the board could not remember this event's repository or issue; the next event will");
    }
  };
}
