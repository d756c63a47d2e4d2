/**
 * What a `GET /api/v1/events` asks for, read from its query and its
 * `Last-Event-ID` header; anything malformed is answered 400 before anything
 * else is done.
 *
 *   repo=owner/name     repeatable, or comma-separated: only those repositories' events (at most 20)
 *   issue=N             with exactly one repo: only that issue's
 *   holder=@me          the caller's own leases (by GitHub account id; a token or session needed)
 *   holder=login        the leases of that login (any case)
 *   last_event_id=N     for clients that cannot set the Last-Event-ID header (the header wins)
 */
import type { IncomingMessage } from "node:http";
import { type Answer, errorAnswer } from "./answers.js";

export interface EventsQuery {
  /** owner/name, as given (the ledger looks them up in any case), without repeats. */
  repos: string[];
  issue: number | null;
  holder: { me: true } | { login: string } | null;
  lastEventId: number | null;
}

export const MAX_REPOS = 20;
const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/;
const POSITION = /^\d{1,15}$/;

const invalid = (message: string): Answer => errorAnswer(400, "invalid_parameter", message);

export function eventsQuery(url: URL, req: IncomingMessage): EventsQuery | Answer {
  const q = url.searchParams;
  const repos: string[] = [];
  for (const value of q.getAll("repo")) {
    for (const part of value.split(",")) {
      const repo = part.trim();
      if (repo === "") continue;
      if (!REPO.test(repo)) return invalid("`repo` must be owner/name (repeat it, or separate names with commas, for several).");
      if (!repos.some((r) => r.toLowerCase() === repo.toLowerCase())) repos.push(repo);
    }
  }
  if (repos.length > MAX_REPOS) return invalid(`\`repo\` names at most ${MAX_REPOS} repositories.`);

  let issue: number | null = null;
  const issueText = q.get("issue")?.trim();
  if (issueText !== undefined && issueText !== "") {
    const n = /^\d{1,10}$/.test(issueText) ? Number(issueText) : NaN;
    if (!(n >= 1 && n <= 2_147_483_647)) return invalid("`issue` must be a whole number from 1 to 2147483647.");
    if (repos.length !== 1) return invalid("`issue` needs exactly one `repo`.");
    issue = n;
  }

  let holder: EventsQuery["holder"] = null;
  const holderText = q.get("holder")?.trim();
  if (holderText !== undefined && holderText !== "") {
    if (holderText.toLowerCase() === "@me") holder = { me: true };
    else if (LOGIN.test(holderText.replace(/^@/, ""))) holder = { login: holderText.replace(/^@/, "") };
    else return invalid("`holder` must be a GitHub login or @me.");
  }

  // On a reconnect the browser sends the header with the last id it got, while the URL keeps the first one.
  const header = req.headers["last-event-id"];
  const fromHeader = (Array.isArray(header) ? header[0] : header)?.trim();
  const fromQuery = q.get("last_event_id")?.trim();
  const given = fromHeader !== undefined && fromHeader !== "" ? fromHeader : fromQuery !== undefined && fromQuery !== "" ? fromQuery : null;
  if (given !== null && !POSITION.test(given)) {
    return invalid("`Last-Event-ID` (or `last_event_id`) must be the `id` of an event the stream sent: a whole number, 0 or more.");
  }
  return { repos, issue, holder, lastEventId: given === null ? null : Number(given) };
}
