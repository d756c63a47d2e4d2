/**
 * The fake GitHub in a process of its own (started by `fake-process.ts`), so
 * that a benchmark measuring the app's memory and CPU does not also measure
 * the fake's: every issue, label and comment the app creates lives here.
 */
import { userId } from "../../test/support/fake-github/json-shapes.js";
import { type FakeGitHub, type RecordedRequest, startFakeGitHub } from "../../test/support/fake-github.js";

export interface RequestSummary {
  requests: number;
  reads: number;
  writes: number;
  /** Content-creating POSTs (comments, labels, issue labels, assignees, check runs). */
  content: number;
  /** Comments posted (which Octokit also spaces as notification-triggering). */
  comments: number;
  /** Answers with status >= 400, by status. */
  errors: Record<string, number>;
  unmatched: number;
  /** Requests refused by the content limit so far. */
  refused: number;
  /** First and last arrival times of the summarised requests. */
  first: number | null;
  last: number | null;
  /** The most content-creating requests admitted in any window of the length asked (an hour of GitHub's, scaled); 0 when none was asked. */
  contentWindowMax: number;
}

export interface IssueCensus {
  issues: number;
  /** Issues still carrying one of the app's labels, or an assignee. */
  labelled: number;
  assigned: number;
  /** Issues by how many replies of each outcome they carry. */
  replies: Record<string, Record<string, number>>;
  /** The app's labels left in the repositories, besides `claimed` and `keepLabels` (holder and token labels should be deleted). */
  repoLabels: number;
}

export type FakeRequest =
  | { op: "setContentLimit"; limit: { max: number; windowMs: number } | null }
  | { op: "setLimits"; content: Array<{ max: number; windowMs: number }>; points: { max: number; windowMs: number } | null }
  | { op: "summary"; windowMs?: number }
  | { op: "census"; repos: string[]; issues: number; keepLabels: string[] }
  | { op: "know"; repos: Array<{ full: string; id: number }>; logins: string[] }
  | { op: "close" };

const CONTENT = /^\/repos\/[^/]+\/[^/]+\/(labels|issues\/\d+\/(labels|assignees|comments)|check-runs)$/;
const APP_LABEL = /^(claimed|claimed-by: .*|lease #\d+)$/;

function summarise(fake: FakeGitHub, log: RecordedRequest[], windowMs = 0): RequestSummary {
  const s: RequestSummary = {
    requests: log.length, reads: 0, writes: 0, content: 0, comments: 0, errors: {}, unmatched: fake.unmatched.length, refused: fake.refused,
    first: log[0]?.at ?? null, last: log[log.length - 1]?.at ?? null, contentWindowMax: 0,
  };
  const contentAt: number[] = [];
  for (const r of log) {
    // A GraphQL document of mutations writes and creates content (once, however many mutations); a GraphQL query reads.
    const mutation = r.path === "/graphql" && /^\s*mutation\b/.test(String((r.body as { query?: unknown } | undefined)?.query));
    const content = r.method === "POST" && (CONTENT.test(r.path) || mutation);
    if (r.method === "GET" || r.method === "HEAD" || (r.path === "/graphql" && !mutation)) s.reads++;
    else s.writes++;
    if (content) s.content++;
    if (content && r.status < 400) contentAt.push(r.at);
    if (r.method === "POST" && /\/issues\/\d+\/comments$/.test(r.path)) s.comments++;
    if (r.status >= 400) s.errors[r.status] = (s.errors[r.status] ?? 0) + 1;
  }
  if (windowMs > 0) {
    for (let a = 0, b = 0; b < contentAt.length; b++) {
      while (contentAt[b]! - contentAt[a]! >= windowMs) a++;
      s.contentWindowMax = Math.max(s.contentWindowMax, b - a + 1);
    }
  }
  return s;
}

function census(fake: FakeGitHub, repos: string[], issues: number, keepLabels: string[]): IssueCensus {
  const c: IssueCensus = { issues: 0, labelled: 0, assigned: 0, replies: {}, repoLabels: 0 };
  for (const repo of repos) {
    const keep = new Set(["claimed", ...keepLabels]);
    c.repoLabels += fake.repoLabels(repo).filter((l) => APP_LABEL.test(l.name) && !keep.has(l.name)).length;
    for (let n = 1; n <= issues; n++) {
      c.issues++;
      if (fake.issueLabels(repo, n).some((name) => APP_LABEL.test(name))) c.labelled++;
      if (fake.assignees(repo, n).length > 0) c.assigned++;
      const count: Record<string, number> = {};
      for (const comment of fake.comments(repo, n)) {
        const outcome = /"outcome":"([a-z_]+)"/.exec(comment.body)?.[1] ?? "other";
        count[outcome] = (count[outcome] ?? 0) + 1;
      }
      for (const [outcome, k] of Object.entries(count)) {
        const byCount = (c.replies[outcome] ??= {});
        byCount[k] = (byCount[k] ?? 0) + 1;
      }
    }
  }
  return c;
}

async function main(): Promise<void> {
  const fake = await startFakeGitHub(JSON.parse(process.argv[2] ?? "{}") as Parameters<typeof startFakeGitHub>[0]);
  process.on("message", (msg: { id: number; req: FakeRequest }) => {
    const { id, req } = msg;
    let result: unknown = null;
    switch (req.op) {
      case "setContentLimit":
        fake.setContentLimit(req.limit);
        break;
      case "setLimits":
        fake.setContentLimits(req.content);
        fake.setPointsLimit(req.points);
        break;
      case "summary": {
        // Summarised and forgotten: the log of a long run would grow without bound.
        result = summarise(fake, fake.requests, req.windowMs);
        fake.requests.length = 0;
        break;
      }
      case "census":
        result = census(fake, req.repos, req.issues, req.keepLabels);
        break;
      case "know":
        // The payloads' repositories by their ids, and their people: their node ids then name the fake's records.
        for (const r of req.repos) fake.addRepo(r.full, { id: r.id });
        for (const login of req.logins) userId(login);
        break;
      case "close":
        void fake.close().then(() => {
          process.send?.({ id, result: null }, () => process.exit(0));
        });
        return;
    }
    process.send?.({ id, result });
  });
  process.send?.({ ready: { url: fake.url, host: fake.host, baseUrl: fake.baseUrl } });
}

await main();
