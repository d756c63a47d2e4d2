/**
 * An issue as a caller names it, `"owner/repo#12"` or `{ owner, repo, issue }`,
 * checked before any request is made, with GitHub's rules for owner and
 * repository names.
 */
import type { IssueRef } from "./types.js";

export interface ParsedRef {
  owner: string;
  repo: string;
  issue: number;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const TEXT = /^([^/#\s]+)\/([^/#\s]+)#([0-9]{1,15})$/;

/** The parts of `ref`; a TypeError saying what is accepted when it is not an issue. */
export function parseRef(ref: IssueRef): ParsedRef {
  let parts: { owner: unknown; repo: unknown; issue: unknown };
  if (typeof ref === "string") {
    const m = TEXT.exec(ref.trim());
    if (!m) throw badRef(ref);
    parts = { owner: m[1], repo: m[2], issue: Number(m[3]) };
  } else if (ref !== null && typeof ref === "object") {
    parts = ref;
  } else {
    throw badRef(ref);
  }
  const { owner, repo, issue } = parts;
  if (
    typeof owner !== "string" ||
    typeof repo !== "string" ||
    !OWNER.test(owner) ||
    !REPO.test(repo) ||
    repo === "." ||
    repo === ".." ||
    typeof issue !== "number" ||
    !Number.isSafeInteger(issue) ||
    issue < 1
  ) {
    throw badRef(ref);
  }
  return { owner, repo, issue };
}

export function formatRef(ref: ParsedRef): string {
  return `${ref.owner}/${ref.repo}#${ref.issue}`;
}

/** An owner's name as GitHub allows it, or a TypeError naming `whole`, what the caller passed. */
export function checkOwner(owner: unknown, whole: unknown): string {
  if (typeof owner !== "string" || !OWNER.test(owner)) throw badName("an owner", whole);
  return owner;
}

/** A repository's name as GitHub allows it, or a TypeError naming `whole`. */
export function checkRepo(repo: unknown, whole: unknown): string {
  if (typeof repo !== "string" || !REPO.test(repo) || repo === "." || repo === "..") throw badName("a repository", whole);
  return repo;
}

export function badName(what: string, whole: unknown): TypeError {
  return new TypeError(`not ${what}: ${shown(whole)}; write a repository as "owner/repo" or { owner, repo }, an owner as { org: "owner" }`);
}

/** The API path of an issue's lease, each part percent-encoded. */
export function leasePath(ref: ParsedRef): string {
  return `api/v1/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}/issues/${ref.issue}/lease`;
}

function badRef(ref: unknown): TypeError {
  return new TypeError(`not an issue: ${shown(ref)}; write it as "owner/repo#12" or { owner, repo, issue }`);
}

/** What the caller passed, short, for a message. */
function shown(value: unknown): string {
  try {
    return typeof value === "string" ? JSON.stringify(value.slice(0, 200)) : (JSON.stringify(value) ?? String(value)).slice(0, 200);
  } catch {
    return String(value);
  }
}
