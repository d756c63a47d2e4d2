/**
 * What the board remembers from webhook payloads, so that drawing a page
 * reads no GitHub: each repository's `private` flag (every event carries
 * its repository), and the title and labels of leased issues (every issue,
 * comment and pull request event carries its issue). A card is kept for an
 * issue the ledger knows (leased now or before) or one whose comment claims
 * it; other issues leave no trace.
 *
 * Each replica remembers what it last wrote, so a repository's events and
 * an issue's unchanged labels cost no write; the ledger also writes nothing
 * when nothing changed. A failure is logged and the delivery goes on: the
 * next event writes it again, and a repository not yet seen counts as
 * private meanwhile.
 */
import type { Logger } from "probot";
import { isParseError, parseCommand } from "../commands/parse-command.js";
import type { IssueCard, Ledger } from "../ledger/types.js";

/** Stamps kept per replica before the memory starts over. */
const MAX_REMEMBERED = 50_000;

interface Payload {
  action?: string;
  installation?: { id?: number };
  repository?: { id?: number; full_name?: string; private?: boolean };
  issue?: { number?: number; title?: string; labels?: Array<{ name?: string } | string> };
  pull_request?: { number?: number; title?: string; labels?: Array<{ name?: string } | string> };
  comment?: { body?: string | null };
}

export interface RememberDeps {
  ledger: Ledger;
  clock: () => number;
  log: Logger;
}

function bounded(map: Map<string, string>, key: string, stamp: string): boolean {
  if (map.get(key) === stamp) return false;
  if (map.size >= MAX_REMEMBERED) map.clear();
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

/** A comment whose command claims the issue: a lease may follow, so its card is kept. */
function claims(p: Payload): boolean {
  const body = p.comment?.body;
  if (!body || p.action === "deleted") return false;
  const command = parseCommand(body);
  return command !== null && !isParseError(command) && command.kind === "claim";
}

export function rememberer(deps: RememberDeps): (name: string, payload: unknown) => Promise<void> {
  const repos = new Map<string, string>();
  const cards = new Map<string, string>();
  return async (name, payload) => {
    const p = payload as Payload;
    const repo = p.repository;
    try {
      const installation = p.installation?.id;
      if (repo && typeof repo.id === "number" && typeof repo.full_name === "string" && typeof repo.private === "boolean" && typeof installation === "number") {
        const stamp = `${repo.private}|${repo.full_name}|${installation}`;
        if (bounded(repos, String(repo.id), stamp)) {
          try {
            await deps.ledger.rememberVisibility({ repoId: repo.id, repo: repo.full_name, installation, private: repo.private }, deps.clock());
          } catch (error) {
            repos.delete(String(repo.id));
            throw error;
          }
        }
      }
      const card = cardOf(p);
      if (card) {
        const create = name === "issue_comment" && claims(p);
        const key = `${card.repoId}#${card.issue}`;
        // Remembered only once the ledger kept it: an issue with no lease yet is asked about again.
        if (bounded(cards, key, JSON.stringify([card.title, card.labels])) || create) {
          let kept = false;
          try {
            kept = await deps.ledger.rememberCard(card, deps.clock(), create);
          } finally {
            if (!kept) cards.delete(key);
          }
        }
      }
    } catch (error) {
      deps.log.warn({ err: error, event: name, repo: repo?.full_name }, "the board could not remember this event's repository or issue; the next event will");
    }
  };
}
