/**
 * What a person sees on an issue of the fake GitHub, read the way the e2e
 * tests assert on it: the app's replies with their machine-readable
 * markers, the labels, the assignees.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseMarker } from "../../src/github/reply-marker.js";
import type { FakeGitHub } from "../support/fake-github.js";
import { logLines, type ServerProcess } from "../support/server-process.js";
import { REPO } from "../support/payloads.js";

export const FULL = `${REPO.owner}/${REPO.name}`;
export const BOT = "issue-leases[bot]";

export interface ReplyView {
  op: string;
  outcome: string;
  token: number | null;
  holder: string | null;
  ref: string | undefined;
  body: string;
}

/** The app's comments on an issue, oldest first, with their markers parsed. */
export function replies(fake: FakeGitHub, issue: number): ReplyView[] {
  return fake
    .comments(FULL, issue)
    .filter((c) => c.user === BOT)
    .map((c) => {
      const m = parseMarker(c.body);
      if (!m) throw new Error(`a reply without a marker on #${issue}: ${c.body}`);
      return {
        op: String(m.op),
        outcome: String(m.outcome),
        token: (m.token as number | null) ?? null,
        holder: (m.holder as string | null) ?? null,
        ref: m.ref as string | undefined,
        body: c.body,
      };
    });
}

export function labels(fake: FakeGitHub, issue: number): string[] {
  return fake.issueLabels(FULL, issue).sort();
}

export function repoLabelNames(fake: FakeGitHub): string[] {
  return fake.repoLabels(FULL).map((l) => l.name);
}

/** The labels a live lease shows, sorted as `labels` returns them. */
export function leaseLabels(holder: string, token: number): string[] {
  return ["claimed", `claimed-by: ${holder}`, `lease #${token}`].sort();
}

/** A request as the fake or the proxy saw it: enough to tell what it wrote. */
interface SeenRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** A GraphQL document of mutations (the app's writes on GITHUB_WRITES=graphql), not a query. */
export function isMutationDocument(r: SeenRequest): boolean {
  const query = (r.body as { query?: unknown } | undefined)?.query;
  return r.method === "POST" && /\/graphql(\?|$)/.test(r.path) && typeof query === "string" && /^\s*mutation\b/.test(query);
}

/** A write on either path: a REST request other than a read, or a GraphQL mutation document. */
export function isWrite(r: SeenRequest): boolean {
  // An installation token's POST is auth plumbing, not a write of the app's.
  if (r.method === "GET" || r.method === "HEAD" || /\/access_tokens(\?|$)/.test(r.path)) return false;
  return /\/graphql(\?|$)/.test(r.path) ? isMutationDocument(r) : true;
}

/**
 * A write that may reach `issue`: a REST write under /issues/N/, or a mutation
 * document (which names the issue by node id, not in its path).
 */
export function isWriteTo(r: SeenRequest, issue: number): boolean {
  return isMutationDocument(r) || (isWrite(r) && r.path.includes(`/issues/${issue}/`));
}

/** A write that posts one of the app's comments: REST's POST .../comments, or a mutation document with an addComment. */
export function postsComment(r: SeenRequest): boolean {
  if (r.method === "POST" && /\/issues\/\d+\/comments(\?|$)/.test(r.path)) return true;
  return isMutationDocument(r) && /\baddComment\s*\(/.test(String((r.body as { query: string }).query));
}

/** Every request that posted a comment on `issue`, whatever GitHub answered (a 502 after posting included). */
export function commentRequests(fake: FakeGitHub, issue: number): FakeGitHub["requests"] {
  return fake.requests.filter((r) => (r.posted ?? []).includes(`${FULL}#${issue}`));
}

/** The issues that successful writes reached so far: REST's by path, GraphQL's by the replies its documents posted. */
export function issuesWritten(fake: FakeGitHub): Set<number> {
  const issues = new Set<number>();
  for (const r of fake.requests) {
    if (r.status >= 400 || !isWrite(r)) continue;
    const n = /\/issues\/(\d+)\//.exec(r.path)?.[1];
    if (n) issues.add(Number(n));
    for (const where of r.posted ?? []) if (where.startsWith(`${FULL}#`)) issues.add(Number(where.slice(FULL.length + 1)));
  }
  return issues;
}

/** Successful comment posts by the app, per issue: a reply posted twice shows here even if a marker were wrong. */
export function commentPosts(fake: FakeGitHub): Map<number, number> {
  const counts = new Map<number, number>();
  for (const r of fake.requests) {
    if (r.status >= 400) continue;
    for (const where of r.posted ?? []) {
      if (!where.startsWith(`${FULL}#`)) continue;
      const n = Number(where.slice(FULL.length + 1));
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
  }
  return counts;
}

export function tempDir(): { dir: string; db: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-e2e-"));
  return { dir, db: join(dir, "leases.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** For a failed test: GitHub's request log, relative to its first request, and the servers' warnings and errors. */
export function runReport(fake: FakeGitHub, servers: ServerProcess[]): string {
  const t0 = fake.requests[0]?.at ?? 0;
  const requests = fake.requests.map((r) => `${String(r.at - t0).padStart(6)} ms  ${r.status} ${r.method} ${r.path}`);
  const logs = servers.flatMap((s, i) => logLines(s, 40).map((l) => `server ${i + 1}: ${JSON.stringify(l)}`));
  const stderr = servers.map((s, i) => (s.stderr().trim() ? `server ${i + 1} stderr:\n${s.stderr()}` : "")).filter(Boolean);
  return ["GitHub saw:", ...requests, ...logs, ...stderr].join("\n");
}
