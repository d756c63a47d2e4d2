/**
 * An in-process fake of the slice of the GitHub REST API that issue-leases
 * uses, for end-to-end tests, fault tests and benchmarks.
 *
 * It speaks HTTP (node:http only) so the real app, Octokit plugins included
 * (auth, retry, throttling, config), runs unmodified against it: point
 * Probot at it with `GHE_HOST=<fake.host> GHE_PROTOCOL=http`, or give an
 * Octokit `baseUrl: fake.baseUrl`. Every route is served both under the
 * `/api/v3` prefix and without it.
 *
 * Behaviour copied from GitHub because the app depends on it:
 * - label names compare case-insensitively, are limited to 50 characters,
 *   and adding a missing label to an issue creates it (color "ededed");
 * - deleting a repo label removes it from every issue;
 * - assignees without access are dropped silently (see `refuseAssignee`);
 * - list endpoints paginate with `per_page`/`page` and a `Link` header;
 * - secondary rate limits answer 403 with a `retry-after` header and a
 *   message Octokit's throttling plugin recognises.
 *
 * Repos and issues spring into existence on first use, so a test only seeds
 * what it asserts on. Handlers run synchronously once the body is read, so
 * each request is atomic, as GitHub's writes are.
 */
import { createHash } from "node:crypto";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeGitHubOptions {
  /** Default 1; comments it posts carry performed_via_github_app {id: appId, slug}. */
  appId?: number;
  /** Default "issue-leases"; the bot login is `${slug}[bot]`. */
  appSlug?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 1; the id served by the installation endpoints. */
  installationId?: number;
  /** Clock for timestamps and the content limit window; default Date.now. */
  now?: () => number;
}

export interface RecordedRequest {
  method: string;
  /** Path without the `/api/v3` prefix and the query string, still percent-encoded. */
  path: string;
  /** Query string without the leading "?", or "". */
  query: string;
  status: number;
  /** The parsed JSON request body, or undefined when there was none. */
  body: unknown;
  /** Arrival time, from the fake's clock. */
  at: number;
}

export interface PullRequestSeed {
  number: number;
  body?: string;
  user: string;
  headSha: string;
  title?: string;
  headRef?: string;
  state?: "open" | "closed";
  draft?: boolean;
}

export interface IssueSeed {
  title?: string;
  body?: string;
  user?: string;
  state?: "open" | "closed";
  labels?: string[];
  assignees?: string[];
}

export interface FakeGitHub {
  /** "http://127.0.0.1:PORT" */
  url: string;
  /** "127.0.0.1:PORT", for GHE_HOST. */
  host: string;
  /** url + "/api/v3", for Octokit's baseUrl. */
  baseUrl: string;
  /** Every request except installation-token requests, in the order answered. */
  requests: RecordedRequest[];
  /** Requests no route matched; tests assert this stays empty. */
  unmatched: RecordedRequest[];
  close(): Promise<void>;
  /**
   * Clears repos, seeded users, pending faults, request logs, `refused` and
   * the content limit's window. Keeps `delayMs` and the content limit
   * setting, which describe the server rather than its data.
   */
  reset(): void;

  addRepo(repo: string, opts?: { id?: number; defaultBranch?: string }): void;
  addIssue(repo: string, issue: number, seed?: IssueSeed): void;
  addPullRequest(repo: string, pr: PullRequestSeed): void;
  repoLabels(repo: string): Array<{ name: string; color: string; description: string | null }>;
  issueLabels(repo: string, issue: number): string[];
  assignees(repo: string, issue: number): string[];
  comments(repo: string, issue: number): Array<{ id: number; body: string; user: string }>;
  /** Seeds a comment (default author "octocat") and returns its id. */
  addComment(repo: string, issue: number, body: string, user?: string): number;
  checkRuns(repo: string): Array<{ id: number; name: string; head_sha: string; status: string; conclusion: string | null; output: unknown }>;
  /** Users never set read as "read", like anyone on a public repo. */
  setPermission(repo: string, login: string, permission: Permission): void;
  setOrgMember(org: string, login: string): void;
  /** Served by the contents API; null removes the file. */
  setConfigFile(repo: string, path: string, content: string | null): void;
  /** GitHub silently drops assignees without access: this login is never assigned. */
  refuseAssignee(login: string): void;

  /** The next `n` reads whose path matches `path` answer `status` (reads are never faulted otherwise). */
  failNextReads(path: RegExp, n: number, status?: number): void;
  /** The next n writes answer `status` (default 500) and change nothing. */
  failNextWrites(n: number, status?: number): void;
  /** The next n writes are applied, but answer `status` (default 502), as a gateway that lost GitHub's answer does. */
  failNextWritesAfterApplying(n: number, status?: number): void;
  /** The next n writes answer 403 secondary rate limit with `retry-after`. */
  rateLimitNextWrites(n: number, retryAfterSeconds: number): void;
  /**
   * Content-creating requests (POST of comments, labels, issue labels,
   * assignees, check runs) beyond `max` within a sliding `windowMs` answer
   * 403 secondary rate limit, with retry-after = seconds until a slot frees.
   */
  setContentLimit(opts: { max: number; windowMs: number } | null): void;
  /** Requests refused by the content limit. */
  refused: number;
  /** Successful (status < 400) write requests recorded. */
  writeCount(): number;
  /** Artificial latency per request, before it is handled. */
  delayMs: number;

  /**
   * API callers (issue 10): registers a token GitHub would accept, the
   * account it is (GraphQL `viewer`), and which repositories it sees
   * (`GET /repos/{owner}/{repo}` answers 404 for others, as GitHub does for
   * a private repository; default: all). Unregistered tokens other than the
   * app's are refused by `viewer` (401).
   */
  addToken(token: string, who: { login: string; id: number; type?: "User" | "Bot"; repos?: string[] }): void;
  /** The app is not installed on this repository: `GET /repos/{owner}/{repo}/installation` answers 404. */
  uninstall(repo: string): void;

  // --- Users signing in to the board (OAuth web flow) and what their tokens see.
  /** The GitHub App's client id and secret the OAuth endpoints accept. */
  setOAuthApp(clientId: string, clientSecret: string): void;
  /** Who is signed in to GitHub in the browser: /login/oauth/authorize sends them straight back with a code (null: nobody; 401). */
  signInAs(login: string | null): void;
  /** The app's installations a user can access, and the repositories each gives them. */
  setUserInstallations(login: string, installations: Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>): void;
  /** User tokens handed out by the OAuth exchange and not revoked. */
  liveUserTokens(): string[];
}

export async function startFakeGitHub(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const fake = new FakeGitHubServer(opts);
  await fake.listen(opts.port ?? 0);
  return fake;
}

// ---------------------------------------------------------------------------

const PREFIX = "/api/v3";
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_LABEL_NAME = 50;
const MAX_COMMENT_BODY = 65536;
const DOCS = "https://docs.github.com/rest";
const SECONDARY_LIMIT_DOCS =
  "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";
const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);
/** Route params that only match digits, so `issues/comments/7` never reads as issue "comments". */
const NUMERIC_PARAMS = new Set(["n", "id", "installation"]);
const CHECK_STATUSES = new Set(["queued", "in_progress", "completed", "waiting", "requested", "pending"]);
const CHECK_CONCLUSIONS = new Set([
  "action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out",
]);

/** How GitHub reports each role through the legacy `permission` field. */
const PERMISSION_VIEW: Record<Permission, { permission: string; role_name: string }> = {
  admin: { permission: "admin", role_name: "admin" },
  maintain: { permission: "write", role_name: "maintain" },
  write: { permission: "write", role_name: "write" },
  triage: { permission: "read", role_name: "triage" },
  read: { permission: "read", role_name: "read" },
  none: { permission: "none", role_name: "none" },
};
const PERMISSION_RANK: Record<Permission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

interface LabelRecord { id: number; name: string; color: string; description: string | null }

interface PullRecord { headSha: string; headRef: string; draft: boolean }

interface IssueRecord {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason: string | null;
  user: string;
  labelIds: number[];
  assignees: string[];
  commentCount: number;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  pull: PullRecord | null;
}

interface CommentRecord { id: number; issue: number; body: string; user: string; createdAt: number; updatedAt: number }

interface CheckRunRecord {
  id: number;
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  output: Record<string, unknown> | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: number;
  completedAt: number | null;
}

/** The board's sign-in: the app's OAuth credentials, who is signed in, codes and user tokens handed out. */
interface OAuthState {
  app: { clientId: string; clientSecret: string } | null;
  signedIn: string | null;
  installations: Map<string, Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>>;
  codes: Map<string, { login: string; redirect: string }>;
  /** Token -> login. */
  tokens: Map<string, string>;
  next: number;
}

function newOAuthState(): OAuthState {
  return { app: null, signedIn: null, installations: new Map(), codes: new Map(), tokens: new Map(), next: 1 };
}

interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  defaultBranch: string;
  labels: Map<number, LabelRecord>;
  /** Lower-cased label name -> label id. */
  labelIndex: Map<string, number>;
  issues: Map<number, IssueRecord>;
  comments: Map<number, CommentRecord>;
  checkRuns: Map<number, CheckRunRecord>;
  files: Map<string, string>;
  /** Lower-cased login -> permission. */
  permissions: Map<string, Permission>;
}

type Fault = { kind: "fail"; status: number } | { kind: "applied-then-fail"; status: number } | { kind: "rate-limit"; retryAfter: number };

type RouteKind = "read" | "write" | "content" | "token";

interface Ctx {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  accept: string;
  /** The Authorization header, or "". */
  authorization: string;
  /** The path as received, prefix included, for Link headers. */
  rawPath: string;
  /** The bearer token of the request, if any (never recorded). */
  token: string | null;
}

interface Reply {
  status: number;
  json?: unknown;
  /** Sent as text/plain instead of JSON. */
  text?: string;
  headers?: Record<string, string>;
}

type Handler = (ctx: Ctx) => Reply;

interface Route { method: string; segments: string[]; kind: RouteKind; handle: Handler }

type BodyOutcome = { kind: "ok"; body: unknown } | { kind: "too-large" } | { kind: "bad-json" };

class FakeGitHubServer implements FakeGitHub {
  url = "";
  host = "";
  baseUrl = "";
  readonly requests: RecordedRequest[] = [];
  readonly unmatched: RecordedRequest[] = [];
  refused = 0;
  delayMs = 0;

  private readonly appId: number;
  private readonly slug: string;
  private readonly botLogin: string;
  private readonly installationId: number;
  private readonly now: () => number;
  private readonly server: Server;
  private readonly routes: Route[] = [];
  private closed: Promise<void> | null = null;

  private repos = new Map<string, RepoRecord>();
  private orgMembers = new Map<string, Set<string>>();
  private refusedAssignees = new Set<string>();
  private faults: Fault[] = [];
  private readFaults: Array<{ path: RegExp; status: number }> = [];
  private contentLimit: { max: number; windowMs: number } | null = null;
  /** Arrival times of content-creating requests admitted within the window. */
  private contentWindow: number[] = [];
  private successfulWrites = 0;
  private requestSeq = 0;
  private nextRepoId = 100_001;
  private nextLabelId = 1;
  private nextCommentId = 1;
  private nextCheckRunId = 1;
  private oauth: OAuthState = newOAuthState();

  constructor(opts: FakeGitHubOptions) {
    this.appId = opts.appId ?? 1;
    this.slug = opts.appSlug ?? "issue-leases";
    this.botLogin = `${this.slug}[bot]`;
    this.installationId = opts.installationId ?? 1;
    this.now = opts.now ?? Date.now;
    this.defineRoutes();
    this.server = createServer((req, res) => this.onRequest(req, res));
    // Longer than undici's keep-alive so the server never closes a socket the client is reusing.
    this.server.keepAliveTimeout = 30_000;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        const address = this.server.address() as AddressInfo;
        this.host = `127.0.0.1:${address.port}`;
        this.url = `http://${this.host}`;
        this.baseUrl = `${this.url}${PREFIX}`;
        resolve();
      });
    });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  reset(): void {
    this.requests.length = 0;
    this.unmatched.length = 0;
    this.refused = 0;
    this.repos = new Map();
    this.orgMembers = new Map();
    this.refusedAssignees = new Set();
    this.faults = [];
    this.readFaults = [];
    this.contentWindow = [];
    this.successfulWrites = 0;
    this.nextRepoId = 100_001;
    this.nextLabelId = 1;
    this.nextCommentId = 1;
    this.nextCheckRunId = 1;
    this.oauth = newOAuthState();
    this.apiTokens.clear();
    this.uninstalled.clear();
  }

  // --- seeding and inspection ----------------------------------------------

  addRepo(repo: string, opts: { id?: number; defaultBranch?: string } = {}): void {
    const record = this.repoByFullName(repo);
    if (opts.id !== undefined) record.id = opts.id;
    if (opts.defaultBranch !== undefined) record.defaultBranch = opts.defaultBranch;
  }

  addIssue(repo: string, issue: number, seed: IssueSeed = {}): void {
    const r = this.repoByFullName(repo);
    const record = this.issueOf(r, issue);
    if (seed.title !== undefined) record.title = seed.title;
    if (seed.body !== undefined) record.body = seed.body;
    if (seed.user !== undefined) record.user = seed.user;
    if (seed.state !== undefined) this.setIssueState(record, seed.state, null);
    if (seed.labels !== undefined) {
      const ids = this.resolveLabels(r, seed.labels);
      if (!Array.isArray(ids)) throw new Error(`addIssue: invalid label in ${JSON.stringify(seed.labels)}`);
      record.labelIds = ids;
    }
    if (seed.assignees !== undefined) record.assignees = this.assignable(seed.assignees, []);
  }

  addPullRequest(repo: string, pr: PullRequestSeed): void {
    const record = this.issueOf(this.repoByFullName(repo), pr.number);
    record.title = pr.title ?? `Pull request ${pr.number}`;
    record.body = pr.body ?? "";
    record.user = pr.user;
    if (pr.state !== undefined) this.setIssueState(record, pr.state, null);
    record.pull = { headSha: pr.headSha, headRef: pr.headRef ?? `branch-${pr.number}`, draft: pr.draft ?? false };
  }

  repoLabels(repo: string): Array<{ name: string; color: string; description: string | null }> {
    return [...this.repoByFullName(repo).labels.values()].map(({ name, color, description }) => ({ name, color, description }));
  }

  issueLabels(repo: string, issue: number): string[] {
    const r = this.repoByFullName(repo);
    return (r.issues.get(issue)?.labelIds ?? []).map((id) => this.labelById(r, id).name);
  }

  assignees(repo: string, issue: number): string[] {
    return [...(this.repoByFullName(repo).issues.get(issue)?.assignees ?? [])];
  }

  comments(repo: string, issue: number): Array<{ id: number; body: string; user: string }> {
    const out: Array<{ id: number; body: string; user: string }> = [];
    for (const c of this.repoByFullName(repo).comments.values()) {
      if (c.issue === issue) out.push({ id: c.id, body: c.body, user: c.user });
    }
    return out;
  }

  addComment(repo: string, issue: number, body: string, user = "octocat"): number {
    return this.createComment(this.repoByFullName(repo), issue, body, user).id;
  }

  checkRuns(repo: string): Array<{ id: number; name: string; head_sha: string; status: string; conclusion: string | null; output: unknown }> {
    return [...this.repoByFullName(repo).checkRuns.values()].map((c) => ({
      id: c.id, name: c.name, head_sha: c.headSha, status: c.status, conclusion: c.conclusion, output: c.output,
    }));
  }

  setPermission(repo: string, login: string, permission: Permission): void {
    this.repoByFullName(repo).permissions.set(login.toLowerCase(), permission);
  }

  setOrgMember(org: string, login: string): void {
    const key = org.toLowerCase();
    let members = this.orgMembers.get(key);
    if (!members) this.orgMembers.set(key, (members = new Set()));
    members.add(login.toLowerCase());
  }

  setConfigFile(repo: string, path: string, content: string | null): void {
    const files = this.repoByFullName(repo).files;
    const key = path.replace(/^\/+/, "");
    if (content === null) files.delete(key);
    else files.set(key, content);
  }

  refuseAssignee(login: string): void {
    this.refusedAssignees.add(login.toLowerCase());
  }

  failNextWritesAfterApplying(n: number, status = 502): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "applied-then-fail", status });
  }

  /** The next `n` reads whose path matches `path` answer `status` (reads are never faulted otherwise). */
  failNextReads(path: RegExp, n: number, status = 500): void {
    for (let i = 0; i < n; i++) this.readFaults.push({ path, status });
  }

  failNextWrites(n: number, status = 500): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "fail", status });
  }

  rateLimitNextWrites(n: number, retryAfterSeconds: number): void {
    for (let i = 0; i < n; i++) this.faults.push({ kind: "rate-limit", retryAfter: retryAfterSeconds });
  }

  setContentLimit(opts: { max: number; windowMs: number } | null): void {
    this.contentLimit = opts;
    this.contentWindow = [];
  }

  writeCount(): number {
    return this.successfulWrites;
  }

  setOAuthApp(clientId: string, clientSecret: string): void {
    this.oauth.app = { clientId, clientSecret };
  }

  signInAs(login: string | null): void {
    this.oauth.signedIn = login;
  }

  setUserInstallations(login: string, installations: Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>): void {
    this.oauth.installations.set(login.toLowerCase(), installations);
    for (const i of installations) for (const r of i.repos) this.repoByFullName(r.repo);
  }

  liveUserTokens(): string[] {
    return [...this.oauth.tokens.keys()];
  }

  // --- request pipeline -----------------------------------------------------

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const at = this.now();
    const method = (req.method ?? "GET").toUpperCase();
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = q === -1 ? "" : rawUrl.slice(q + 1);
    const path = rawPath === PREFIX || rawPath.startsWith(`${PREFIX}/`) ? rawPath.slice(PREFIX.length) || "/" : rawPath;
    const match = this.match(method, path);
    readBody(req, (outcome) => {
      const run = (): void => this.respond(req, res, { method, path, rawPath, query, at, match, outcome });
      if (this.delayMs > 0) setTimeout(run, this.delayMs);
      else run();
    });
  }

  private respond(
    req: IncomingMessage,
    res: ServerResponse,
    r: {
      method: string; path: string; rawPath: string; query: string; at: number;
      match: { route: Route; params: Record<string, string> } | null; outcome: BodyOutcome;
    },
  ): void {
    const requestId = `${(++this.requestSeq).toString(16).toUpperCase().padStart(4, "0")}:FAKE`;
    const body = r.outcome.kind === "ok" ? r.outcome.body : undefined;
    // GraphQL queries are POSTs, and reads (routes of kind "read").
    const isWrite = WRITE_METHODS.has(r.method) && r.match?.route.kind !== "read";
    let reply: Reply;
    if (!r.match) {
      reply = notFound();
    } else if (r.outcome.kind === "too-large") {
      reply = { status: 413, json: { message: "Payload Too Large", documentation_url: DOCS, status: "413" } };
    } else if (r.outcome.kind === "bad-json") {
      reply = { status: 400, json: { message: "Problems parsing JSON", documentation_url: DOCS, status: "400" } };
    } else if (r.match.route.kind === "token") {
      // Token requests are auth plumbing, not app behaviour: never recorded, never faulted.
      send(res, this.tokenReply(), requestId, this.now());
      return;
    } else {
      const fault = isWrite ? this.faults.shift() : this.readFault(r.path);
      const limited = fault === undefined && r.match.route.kind === "content" ? this.admitContent(r.at) : null;
      if (fault?.kind === "fail") {
        const message = STATUS_CODES[fault.status] ?? "Error";
        reply = { status: fault.status, json: { message, documentation_url: DOCS, status: String(fault.status) } };
      } else if (fault?.kind === "rate-limit") {
        reply = secondaryRateLimit(fault.retryAfter, requestId);
      } else if (limited !== null) {
        this.refused++;
        reply = secondaryRateLimit(limited, requestId);
      } else {
        const ctx: Ctx = {
          params: r.match.params,
          query: new URLSearchParams(r.query),
          body,
          accept: String(req.headers.accept ?? ""),
          authorization: String(req.headers.authorization ?? ""),
          rawPath: r.rawPath,
          token: /^(?:bearer|token)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1] ?? null,
        };
        try {
          reply = r.match.route.handle(ctx);
        } catch (err) {
          // A bug in the fake, not a GitHub behaviour: make it loud in the test's failure.
          reply = { status: 500, json: { message: `fake-github: ${err instanceof Error ? err.stack : String(err)}` } };
        }
        if (fault?.kind === "applied-then-fail") {
          const message = STATUS_CODES[fault.status] ?? "Error";
          reply = { status: fault.status, json: { message, documentation_url: DOCS, status: String(fault.status) } };
        }
      }
    }
    const record: RecordedRequest = { method: r.method, path: r.path, query: r.query, status: reply.status, body, at: r.at };
    this.requests.push(record);
    if (!r.match) this.unmatched.push(record);
    if (isWrite && reply.status < 400) this.successfulWrites++;
    send(res, reply, requestId, this.now());
  }

  private readFault(path: string): Fault | undefined {
    const i = this.readFaults.findIndex((f) => f.path.test(path));
    if (i < 0) return undefined;
    const [f] = this.readFaults.splice(i, 1);
    return { kind: "fail", status: f!.status };
  }

  /** Null when admitted; otherwise seconds until a slot frees. */
  private admitContent(at: number): number | null {
    const limit = this.contentLimit;
    if (!limit) return null;
    const window = this.contentWindow;
    while (window.length > 0 && window[0]! <= at - limit.windowMs) window.shift();
    if (window.length >= limit.max) {
      const oldest = window[window.length - limit.max] ?? at;
      return Math.max(1, Math.ceil((oldest + limit.windowMs - at) / 1000));
    }
    window.push(at);
    return null;
  }

  private tokenReply(): Reply {
    return {
      status: 201,
      json: {
        token: "ghs_fake",
        expires_at: new Date(this.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
        permissions: {},
        repository_selection: "all",
      },
    };
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | null {
    const parts = path.split("/");
    parts.shift();
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const segs = route.segments;
      const last = segs[segs.length - 1] ?? "";
      const rest = last.startsWith("*");
      if (rest ? parts.length < segs.length : parts.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        const seg = segs[i]!;
        const part = parts[i]!;
        if (seg.startsWith(":")) {
          const name = seg.slice(1);
          const decoded = safeDecode(part);
          if (decoded === null || decoded === "" || (NUMERIC_PARAMS.has(name) && !/^\d+$/.test(part))) ok = false;
          else params[name] = decoded;
        } else if (seg.startsWith("*")) {
          const decoded = safeDecode(parts.slice(i).join("/"));
          if (decoded === null || decoded === "") ok = false;
          else params[seg.slice(1)] = decoded;
        } else if (seg !== part) {
          ok = false;
        }
      }
      if (ok) return { route, params };
    }
    return null;
  }

  // --- state helpers --------------------------------------------------------

  private repoByFullName(fullName: string): RepoRecord {
    const slash = fullName.indexOf("/");
    if (slash <= 0 || slash === fullName.length - 1 || fullName.indexOf("/", slash + 1) !== -1) {
      throw new Error(`fake-github: repo must be "owner/name", got ${JSON.stringify(fullName)}`);
    }
    return this.repo(fullName.slice(0, slash), fullName.slice(slash + 1));
  }

  /** GitHub resolves owner and repo names case-insensitively. */
  private repo(owner: string, name: string): RepoRecord {
    const key = `${owner}/${name}`.toLowerCase();
    let record = this.repos.get(key);
    if (!record) {
      record = {
        id: this.nextRepoId++, owner, name, defaultBranch: "main",
        labels: new Map(), labelIndex: new Map(), issues: new Map(), comments: new Map(),
        checkRuns: new Map(), files: new Map(), permissions: new Map(),
      };
      this.repos.set(key, record);
    }
    return record;
  }

  private repoOf(ctx: Ctx): RepoRecord {
    return this.repo(ctx.params.owner!, ctx.params.repo!);
  }

  private issueOf(repo: RepoRecord, n: number): IssueRecord {
    let issue = repo.issues.get(n);
    if (!issue) {
      const t = this.now();
      issue = {
        number: n, title: `Issue ${n}`, body: "", state: "open", stateReason: null, user: "octocat",
        labelIds: [], assignees: [], commentCount: 0, createdAt: t, updatedAt: t, closedAt: null, pull: null,
      };
      repo.issues.set(n, issue);
    }
    return issue;
  }

  private labelById(repo: RepoRecord, id: number): LabelRecord {
    const label = repo.labels.get(id);
    if (!label) throw new Error(`fake-github: dangling label id ${id}`);
    return label;
  }

  private findLabel(repo: RepoRecord, name: string): LabelRecord | undefined {
    const id = repo.labelIndex.get(name.toLowerCase());
    return id === undefined ? undefined : repo.labels.get(id);
  }

  private createLabel(repo: RepoRecord, name: string, color: string, description: string | null): LabelRecord {
    const label: LabelRecord = { id: this.nextLabelId++, name, color, description };
    repo.labels.set(label.id, label);
    repo.labelIndex.set(name.toLowerCase(), label.id);
    return label;
  }

  /** Label ids for names, creating missing labels as GitHub does; a 422 reply when a name is invalid. */
  private resolveLabels(repo: RepoRecord, names: string[]): number[] | Reply {
    for (const name of names) {
      const problem = labelNameProblem(name);
      if (problem) return problem;
    }
    const ids: number[] = [];
    for (const name of names) {
      const label = this.findLabel(repo, name) ?? this.createLabel(repo, name, "ededed", null);
      if (!ids.includes(label.id)) ids.push(label.id);
    }
    return ids;
  }

  /** `wanted` minus refused logins, appended to `current` without duplicates (case-insensitive). */
  private assignable(wanted: string[], current: string[]): string[] {
    const out = [...current];
    for (const login of wanted) {
      const lower = login.toLowerCase();
      if (this.refusedAssignees.has(lower)) continue;
      if (out.some((existing) => existing.toLowerCase() === lower)) continue;
      out.push(login);
    }
    return out;
  }

  private setIssueState(issue: IssueRecord, state: "open" | "closed", reason: string | null): void {
    if (issue.state === state) return;
    issue.state = state;
    issue.closedAt = state === "closed" ? this.now() : null;
    issue.stateReason = state === "closed" ? (reason ?? "completed") : reason === null ? "reopened" : reason;
  }

  private createComment(repo: RepoRecord, issueNumber: number, body: string, user: string): CommentRecord {
    const issue = this.issueOf(repo, issueNumber);
    const t = this.now();
    const comment: CommentRecord = { id: this.nextCommentId++, issue: issueNumber, body, user, createdAt: t, updatedAt: t };
    repo.comments.set(comment.id, comment);
    issue.commentCount++;
    issue.updatedAt = t;
    return comment;
  }

  private touch(issue: IssueRecord): void {
    issue.updatedAt = this.now();
  }

  // --- JSON shapes ----------------------------------------------------------

  private apiRepoUrl(repo: RepoRecord): string {
    return `${this.baseUrl}/repos/${repo.owner}/${repo.name}`;
  }

  private htmlRepoUrl(repo: RepoRecord): string {
    return `${this.url}/${repo.owner}/${repo.name}`;
  }

  private userJson(login: string): Record<string, unknown> {
    if (login.toLowerCase() === this.botLogin.toLowerCase()) {
      return {
        login: this.botLogin, id: 1000 + this.appId, node_id: `BOT_${1000 + this.appId}`, type: "Bot", site_admin: false,
        html_url: `${this.url}/apps/${this.slug}`,
      };
    }
    const isOrg = this.orgMembers.has(login.toLowerCase());
    const id = userId(login);
    return {
      login, id, node_id: `U_${id}`, type: isOrg ? "Organization" : login.endsWith("[bot]") ? "Bot" : "User",
      site_admin: false, html_url: `${this.url}/${login}`,
    };
  }

  private appJson(): Record<string, unknown> {
    return {
      id: this.appId, slug: this.slug, name: this.slug, node_id: `A_${this.appId}`,
      owner: this.userJson("octocat"), html_url: `${this.url}/apps/${this.slug}`,
    };
  }

  private repoJson(repo: RepoRecord): Record<string, unknown> {
    return {
      id: repo.id, node_id: `R_${repo.id}`, name: repo.name, full_name: `${repo.owner}/${repo.name}`,
      owner: this.userJson(repo.owner), private: false, visibility: "public", archived: false, disabled: false,
      html_url: this.htmlRepoUrl(repo), url: this.apiRepoUrl(repo), default_branch: repo.defaultBranch,
    };
  }

  private labelJson(repo: RepoRecord, label: LabelRecord): Record<string, unknown> {
    return {
      id: label.id, node_id: `LA_${label.id}`, url: `${this.apiRepoUrl(repo)}/labels/${encodeURIComponent(label.name)}`,
      name: label.name, color: label.color, default: false, description: label.description,
    };
  }

  private issueLabelsJson(repo: RepoRecord, issue: IssueRecord): Array<Record<string, unknown>> {
    return issue.labelIds.map((id) => this.labelJson(repo, this.labelById(repo, id)));
  }

  private issueJson(repo: RepoRecord, issue: IssueRecord): Record<string, unknown> {
    const api = this.apiRepoUrl(repo);
    const html = `${this.htmlRepoUrl(repo)}/${issue.pull ? "pull" : "issues"}/${issue.number}`;
    const assignees = issue.assignees.map((login) => this.userJson(login));
    const id = repo.id * 1_000_000 + issue.number;
    return {
      id, node_id: `I_${id}`, url: `${api}/issues/${issue.number}`, repository_url: api, html_url: html,
      number: issue.number, title: issue.title, body: issue.body, state: issue.state, state_reason: issue.stateReason,
      locked: false, user: this.userJson(issue.user), labels: this.issueLabelsJson(repo, issue),
      assignee: assignees[0] ?? null, assignees, comments: issue.commentCount, author_association: "NONE",
      created_at: iso(issue.createdAt), updated_at: iso(issue.updatedAt),
      closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
      ...(issue.pull
        ? { pull_request: { url: `${api}/pulls/${issue.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: null } }
        : {}),
    };
  }

  private pullJson(repo: RepoRecord, issue: IssueRecord, pull: PullRecord): Record<string, unknown> {
    const api = this.apiRepoUrl(repo);
    const id = repo.id * 1_000_000 + issue.number;
    const repoJson = this.repoJson(repo);
    return {
      id, node_id: `PR_${id}`, url: `${api}/pulls/${issue.number}`, html_url: `${this.htmlRepoUrl(repo)}/pull/${issue.number}`,
      issue_url: `${api}/issues/${issue.number}`, number: issue.number, state: issue.state, title: issue.title,
      body: issue.body, user: this.userJson(issue.user), labels: this.issueLabelsJson(repo, issue),
      assignees: issue.assignees.map((login) => this.userJson(login)), draft: pull.draft, merged: false, merged_at: null,
      created_at: iso(issue.createdAt), updated_at: iso(issue.updatedAt),
      closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
      head: { sha: pull.headSha, ref: pull.headRef, label: `${repo.owner}:${pull.headRef}`, repo: repoJson },
      base: { ref: repo.defaultBranch, label: `${repo.owner}:${repo.defaultBranch}`, repo: repoJson },
    };
  }

  private commentJson(repo: RepoRecord, c: CommentRecord): Record<string, unknown> {
    const api = this.apiRepoUrl(repo);
    const byBot = c.user.toLowerCase() === this.botLogin.toLowerCase();
    return {
      id: c.id, node_id: `IC_${c.id}`, url: `${api}/issues/comments/${c.id}`,
      html_url: `${this.htmlRepoUrl(repo)}/issues/${c.issue}#issuecomment-${c.id}`, issue_url: `${api}/issues/${c.issue}`,
      body: c.body, user: this.userJson(c.user), created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
      author_association: byBot ? "NONE" : c.user.toLowerCase() === repo.owner.toLowerCase() ? "OWNER" : "NONE",
      performed_via_github_app: byBot ? this.appJson() : null,
    };
  }

  private checkRunJson(repo: RepoRecord, c: CheckRunRecord): Record<string, unknown> {
    const { annotations, images, ...output } = c.output ?? {};
    return {
      id: c.id, node_id: `CR_${c.id}`, name: c.name, head_sha: c.headSha, status: c.status, conclusion: c.conclusion,
      external_id: c.externalId, details_url: c.detailsUrl, url: `${this.apiRepoUrl(repo)}/check-runs/${c.id}`,
      html_url: `${this.htmlRepoUrl(repo)}/runs/${c.id}`,
      started_at: iso(c.startedAt), completed_at: c.completedAt === null ? null : iso(c.completedAt),
      output: {
        title: null, summary: null, text: null, ...output,
        annotations_count: Array.isArray(annotations) ? annotations.length : 0,
      },
      app: this.appJson(), pull_requests: [],
    };
  }

  private paginate<T>(ctx: Ctx, items: T[]): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Math.max(1, intParam(ctx.query.get("per_page"), 30)));
    const page = Math.max(1, intParam(ctx.query.get("page"), 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (p: number, rel: string): string => {
      const q = new URLSearchParams(ctx.query);
      q.set("per_page", String(perPage));
      q.set("page", String(p));
      return `<${this.url}${ctx.rawPath}?${q.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
    if (page > 1) links.push(link(page - 1, "prev"), link(1, "first"));
    return {
      items: items.slice((page - 1) * perPage, page * perPage),
      headers: links.length > 0 ? { link: links.join(", ") } : {},
    };
  }

  private list<T>(ctx: Ctx, items: T[], toJson: (item: T) => unknown): Reply {
    const { items: page, headers } = this.paginate(ctx, items);
    return { status: 200, json: page.map(toJson), headers };
  }

  // --- routes ---------------------------------------------------------------

  private route(method: string, pattern: string, kind: RouteKind, handle: Handler): void {
    this.routes.push({ method, segments: pattern.split("/").slice(1), kind, handle });
  }

  private defineRoutes(): void {
    const R = "/repos/:owner/:repo";
    this.defineOAuthRoutes();

    // App and installation.
    this.route("POST", "/app/installations/:installation/access_tokens", "token", () => this.tokenReply());
    this.route("GET", "/app", "read", () => ({ status: 200, json: this.appJson() }));
    this.route("GET", "/app/installations", "read", () => ({ status: 200, json: [this.installationJson()] }));
    this.route("GET", `${R}/installation`, "read", (ctx) =>
      this.uninstalled.has(fullName(ctx)) ? notFound() : { status: 200, json: this.installationJson(this.repoOf(ctx).owner) });
    this.route("GET", "/installation/repositories", "read", (ctx) => {
      const all = [...this.repos.values()];
      const { items, headers } = this.paginate(ctx, all);
      return {
        status: 200, headers,
        json: { total_count: all.length, repository_selection: "all", repositories: items.map((r) => this.repoJson(r)) },
      };
    });

    // Repos, contents, people.
    this.route("GET", R, "read", (ctx) => (this.tokenSees(ctx) ? { status: 200, json: this.repoJson(this.repoOf(ctx)) } : notFound()));
    // GraphQL: github.com serves /graphql; GitHub Enterprise Server /api/graphql (beside /api/v3).
    for (const path of ["/graphql", "/api/graphql"]) this.route("POST", path, "read", (ctx) => this.graphql(ctx));
    this.route("GET", `${R}/contents/*path`, "read", (ctx) => this.getContent(ctx));
    this.route("GET", `${R}/collaborators/:user/permission`, "read", (ctx) => {
      const login = ctx.params.user!;
      const permission = this.repoOf(ctx).permissions.get(login.toLowerCase()) ?? "read";
      const rank = PERMISSION_RANK[permission];
      return {
        status: 200,
        json: {
          ...PERMISSION_VIEW[permission],
          user: {
            ...this.userJson(login),
            role_name: PERMISSION_VIEW[permission].role_name,
            permissions: { admin: rank >= 5, maintain: rank >= 4, push: rank >= 3, triage: rank >= 2, pull: rank >= 1 },
          },
        },
      };
    });
    this.route("GET", `${R}/collaborators/:user`, "read", (ctx) => {
      const permission = this.repoOf(ctx).permissions.get(ctx.params.user!.toLowerCase());
      return permission !== undefined && permission !== "none" ? { status: 204 } : notFound();
    });
    this.route("GET", `${R}/assignees/:user`, "read", (ctx) =>
      this.refusedAssignees.has(ctx.params.user!.toLowerCase()) ? notFound() : { status: 204 });
    this.route("GET", "/orgs/:org/members/:user", "read", (ctx) =>
      this.orgMembers.get(ctx.params.org!.toLowerCase())?.has(ctx.params.user!.toLowerCase()) ? { status: 204 } : notFound());

    // Repo labels.
    this.route("GET", `${R}/labels`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      return this.list(ctx, [...repo.labels.values()], (l) => this.labelJson(repo, l));
    });
    this.route("GET", `${R}/labels/:name`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const label = this.findLabel(repo, ctx.params.name!);
      return label ? { status: 200, json: this.labelJson(repo, label) } : notFound();
    });
    this.route("POST", `${R}/labels`, "content", (ctx) => this.createRepoLabel(ctx));
    this.route("PATCH", `${R}/labels/:name`, "write", (ctx) => this.updateRepoLabel(ctx));
    this.route("DELETE", `${R}/labels/:name`, "write", (ctx) => {
      const repo = this.repoOf(ctx);
      const label = this.findLabel(repo, ctx.params.name!);
      if (!label) return notFound();
      repo.labels.delete(label.id);
      repo.labelIndex.delete(label.name.toLowerCase());
      for (const issue of repo.issues.values()) {
        const at = issue.labelIds.indexOf(label.id);
        if (at !== -1) issue.labelIds.splice(at, 1);
      }
      return { status: 204 };
    });

    // Issues.
    this.route("GET", `${R}/issues`, "read", (ctx) => this.listIssues(ctx));
    // Literal `comments` routes come before `:n` ones; `:n` only matches digits anyway.
    this.route("GET", `${R}/issues/comments`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const since = sinceParam(ctx);
      const all = [...repo.comments.values()].filter((c) => c.updatedAt >= since);
      return this.list(ctx, all, (c) => this.commentJson(repo, c));
    });
    this.route("GET", `${R}/issues/comments/:id`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const comment = repo.comments.get(Number(ctx.params.id));
      return comment ? { status: 200, json: this.commentJson(repo, comment) } : notFound();
    });
    this.route("PATCH", `${R}/issues/comments/:id`, "write", (ctx) => {
      const repo = this.repoOf(ctx);
      const comment = repo.comments.get(Number(ctx.params.id));
      if (!comment) return notFound();
      const body = bodyField(ctx.body, "body");
      const problem = commentBodyProblem(body);
      if (problem) return problem;
      comment.body = body as string;
      comment.updatedAt = this.now();
      return { status: 200, json: this.commentJson(repo, comment) };
    });
    this.route("DELETE", `${R}/issues/comments/:id`, "write", (ctx) => {
      const repo = this.repoOf(ctx);
      const comment = repo.comments.get(Number(ctx.params.id));
      if (!comment) return notFound();
      repo.comments.delete(comment.id);
      const issue = repo.issues.get(comment.issue);
      if (issue) issue.commentCount--;
      return { status: 204 };
    });
    this.route("GET", `${R}/issues/:n`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      return { status: 200, json: this.issueJson(repo, this.issueOf(repo, Number(ctx.params.n))) };
    });
    this.route("PATCH", `${R}/issues/:n`, "write", (ctx) => this.updateIssue(ctx));

    // Issue labels.
    this.route("GET", `${R}/issues/:n/labels`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const issue = this.issueOf(repo, Number(ctx.params.n));
      return this.list(ctx, issue.labelIds, (id) => this.labelJson(repo, this.labelById(repo, id)));
    });
    this.route("POST", `${R}/issues/:n/labels`, "content", (ctx) => this.setIssueLabels(ctx, "add"));
    this.route("PUT", `${R}/issues/:n/labels`, "write", (ctx) => this.setIssueLabels(ctx, "replace"));
    this.route("DELETE", `${R}/issues/:n/labels`, "write", (ctx) => {
      const repo = this.repoOf(ctx);
      const issue = this.issueOf(repo, Number(ctx.params.n));
      issue.labelIds = [];
      this.touch(issue);
      return { status: 204 };
    });
    this.route("DELETE", `${R}/issues/:n/labels/:name`, "write", (ctx) => {
      const repo = this.repoOf(ctx);
      const issue = this.issueOf(repo, Number(ctx.params.n));
      const label = this.findLabel(repo, ctx.params.name!);
      const at = label ? issue.labelIds.indexOf(label.id) : -1;
      if (at === -1) return notFound("Label does not exist");
      issue.labelIds.splice(at, 1);
      this.touch(issue);
      return { status: 200, json: this.issueLabelsJson(repo, issue) };
    });

    // Assignees.
    this.route("POST", `${R}/issues/:n/assignees`, "content", (ctx) => {
      const logins = stringList(bodyField(ctx.body, "assignees"));
      if (logins === null) return invalid([{ resource: "Issue", code: "missing_field", field: "assignees" }]);
      const repo = this.repoOf(ctx);
      const issue = this.issueOf(repo, Number(ctx.params.n));
      issue.assignees = this.assignable(logins, issue.assignees);
      this.touch(issue);
      return { status: 201, json: this.issueJson(repo, issue) };
    });
    this.route("DELETE", `${R}/issues/:n/assignees`, "write", (ctx) => {
      const logins = stringList(bodyField(ctx.body, "assignees"));
      if (logins === null) return invalid([{ resource: "Issue", code: "missing_field", field: "assignees" }]);
      const repo = this.repoOf(ctx);
      const issue = this.issueOf(repo, Number(ctx.params.n));
      const drop = new Set(logins.map((l) => l.toLowerCase()));
      issue.assignees = issue.assignees.filter((l) => !drop.has(l.toLowerCase()));
      this.touch(issue);
      return { status: 200, json: this.issueJson(repo, issue) };
    });

    // Comments.
    this.route("GET", `${R}/issues/:n/comments`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const n = Number(ctx.params.n);
      const since = sinceParam(ctx);
      const all = [...repo.comments.values()].filter((c) => c.issue === n && c.updatedAt >= since);
      return this.list(ctx, all, (c) => this.commentJson(repo, c));
    });
    this.route("POST", `${R}/issues/:n/comments`, "content", (ctx) => {
      const body = bodyField(ctx.body, "body");
      const problem = commentBodyProblem(body);
      if (problem) return problem;
      const repo = this.repoOf(ctx);
      const comment = this.createComment(repo, Number(ctx.params.n), body as string, this.botLogin);
      return { status: 201, json: this.commentJson(repo, comment) };
    });

    // Check runs.
    this.route("POST", `${R}/check-runs`, "content", (ctx) => this.createCheckRun(ctx));
    this.route("GET", `${R}/check-runs/:id`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const run = repo.checkRuns.get(Number(ctx.params.id));
      return run ? { status: 200, json: this.checkRunJson(repo, run) } : notFound();
    });
    this.route("PATCH", `${R}/check-runs/:id`, "write", (ctx) => this.updateCheckRun(ctx));
    this.route("GET", `${R}/commits/:ref/check-runs`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const name = ctx.query.get("check_name");
      const status = ctx.query.get("status");
      const runs = [...repo.checkRuns.values()]
        .filter((c) => c.headSha === ctx.params.ref && (name === null || c.name === name) && (status === null || c.status === status))
        .reverse();
      const { items, headers } = this.paginate(ctx, runs);
      return { status: 200, headers, json: { total_count: runs.length, check_runs: items.map((c) => this.checkRunJson(repo, c)) } };
    });

    // Pull requests.
    this.route("GET", `${R}/pulls`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const state = ctx.query.get("state") ?? "open";
      const pulls = [...repo.issues.values()]
        .filter((i) => i.pull !== null && (state === "all" || i.state === state))
        .sort((a, b) => b.number - a.number);
      return this.list(ctx, pulls, (i) => this.pullJson(repo, i, i.pull!));
    });
    this.route("GET", `${R}/pulls/:n`, "read", (ctx) => {
      const repo = this.repoOf(ctx);
      const issue = repo.issues.get(Number(ctx.params.n));
      return issue?.pull ? { status: 200, json: this.pullJson(repo, issue, issue.pull) } : notFound();
    });
  }

  // --- users signing in (OAuth web flow) and their tokens ----------------------

  private defineOAuthRoutes(): void {
    const o = () => this.oauth;
    this.route("GET", "/login/oauth/authorize", "read", (ctx) => {
      const redirect = ctx.query.get("redirect_uri") ?? "";
      if (!o().app || ctx.query.get("client_id") !== o().app!.clientId || !/^https?:\/\//.test(redirect)) {
        return { status: 404, text: "The client id or redirect URI is not this app's." };
      }
      const login = o().signedIn;
      if (!login) return { status: 401, text: "Nobody is signed in to the fake GitHub." };
      const code = `code-${o().next++}`;
      o().codes.set(code, { login, redirect });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      back.searchParams.set("state", ctx.query.get("state") ?? "");
      return { status: 302, headers: { location: back.toString() } };
    });
    this.route("POST", "/login/oauth/access_token", "read", (ctx) => {
      const app = o().app;
      const code = String(bodyField(ctx.body, "code") ?? "");
      const grant = o().codes.get(code);
      o().codes.delete(code);
      if (!app || bodyField(ctx.body, "client_id") !== app.clientId || bodyField(ctx.body, "client_secret") !== app.clientSecret) {
        return { status: 200, json: { error: "incorrect_client_credentials" } };
      }
      if (!grant || bodyField(ctx.body, "redirect_uri") !== grant.redirect) return { status: 200, json: { error: "bad_verification_code" } };
      const token = `ghu_fake${o().next++}`;
      o().tokens.set(token, grant.login);
      return { status: 200, json: { access_token: token, token_type: "bearer", scope: "", expires_in: 28_800 } };
    });
    // A user token from the sign-in, or an API caller's token (addToken): its user's installations.
    const userOf = (ctx: Ctx): string | undefined =>
      ctx.token === null ? undefined : (o().tokens.get(ctx.token) ?? this.apiTokens.get(ctx.token)?.login);
    const unauthorized: Reply = { status: 401, json: { message: "Bad credentials", documentation_url: DOCS, status: "401" } };
    this.route("GET", "/user", "read", (ctx) => {
      const login = userOf(ctx);
      return login ? { status: 200, json: this.userJson(login) } : unauthorized;
    });
    this.route("GET", "/user/installations", "read", (ctx) => {
      const login = userOf(ctx);
      if (!login) return unauthorized;
      const all = (o().installations.get(login.toLowerCase()) ?? []).map((i) => ({ ...this.installationJson(), id: i.id }));
      const { items, headers } = this.paginate(ctx, all);
      return { status: 200, json: { total_count: all.length, installations: items }, headers };
    });
    this.route("GET", "/user/installations/:installation/repositories", "read", (ctx) => {
      const login = userOf(ctx);
      if (!login) return unauthorized;
      const installation = (o().installations.get(login.toLowerCase()) ?? []).find((i) => i.id === Number(ctx.params.installation));
      if (!installation) return notFound();
      const all = installation.repos.map((r) => ({ ...this.repoJson(this.repoByFullName(r.repo)), private: r.private, visibility: r.private ? "private" : "public" }));
      const { items, headers } = this.paginate(ctx, all);
      return { status: 200, json: { total_count: all.length, repositories: items }, headers };
    });
    this.route("DELETE", "/applications/:client/token", "read", (ctx) => {
      const app = o().app;
      const basic = /^basic\s+(\S+)$/i.exec(ctx.authorization)?.[1];
      if (!app || !basic || Buffer.from(basic, "base64").toString() !== `${app.clientId}:${app.clientSecret}` || ctx.params.client !== app.clientId) {
        return unauthorized;
      }
      const token = String(bodyField(ctx.body, "access_token") ?? "");
      return o().tokens.delete(token) ? { status: 204 } : notFound();
    });
  }

  // --- API callers' tokens (issue 10) ---------------------------------------

  private readonly apiTokens = new Map<string, { login: string; id: number; type: "User" | "Bot"; repos: Set<string> | null }>();
  private readonly uninstalled = new Set<string>();

  addToken(token: string, who: { login: string; id: number; type?: "User" | "Bot"; repos?: string[] }): void {
    const type = who.type ?? (who.login.endsWith("[bot]") ? "Bot" : "User");
    this.apiTokens.set(token, { login: who.login, id: who.id, type, repos: who.repos ? new Set(who.repos.map((r) => r.toLowerCase())) : null });
  }

  uninstall(repo: string): void {
    this.uninstalled.add(repo.toLowerCase());
  }

  /** Whether the request's token sees the repository: registered tokens see their list; the app's (and others') see all, as before. */
  private tokenSees(ctx: Ctx): boolean {
    const caller = ctx.token === null ? undefined : this.apiTokens.get(ctx.token);
    return !caller?.repos || caller.repos.has(fullName(ctx));
  }

  /** The one GraphQL query the fake answers: `viewer`, for a registered token (else 401, GitHub's "Bad credentials"). */
  private graphql(ctx: Ctx): Reply {
    const query = bodyField(ctx.body, "query");
    if (typeof query !== "string" || !/\bviewer\b/.test(query)) {
      return { status: 200, json: { errors: [{ message: "fake-github: only the viewer query is served" }] } };
    }
    const caller = ctx.token === null ? undefined : this.apiTokens.get(ctx.token);
    if (!caller) return { status: 401, json: { message: "Bad credentials", documentation_url: DOCS } };
    return { status: 200, json: { data: { viewer: { __typename: caller.type, login: caller.login, databaseId: caller.id } } } };
  }

  // --- handlers too long to inline -----------------------------------------

  private installationJson(owner?: string): Record<string, unknown> {
    const login = owner ?? this.repos.values().next().value?.owner ?? "octocat";
    return {
      id: this.installationId, app_id: this.appId, app_slug: this.slug, account: this.userJson(login),
      target_type: "Organization", repository_selection: "all", permissions: {}, events: [],
    };
  }

  private getContent(ctx: Ctx): Reply {
    const path = ctx.params.path!.replace(/^\/+/, "");
    const content = this.repoOf(ctx).files.get(path);
    if (content === undefined) return notFound();
    // Probot's config plugin asks for `application/vnd.github.v3.raw` and
    // rejects a JSON content-type as "a directory or a submodule".
    if (ctx.accept.includes("raw")) return { status: 200, text: content };
    const sha = createHash("sha1").update(`blob ${Buffer.byteLength(content)}\0${content}`).digest("hex");
    const repo = this.repoOf(ctx);
    return {
      status: 200,
      json: {
        type: "file", encoding: "base64", size: Buffer.byteLength(content), name: path.slice(path.lastIndexOf("/") + 1),
        path, content: Buffer.from(content).toString("base64"), sha,
        url: `${this.apiRepoUrl(repo)}/contents/${path}`, html_url: `${this.htmlRepoUrl(repo)}/blob/${repo.defaultBranch}/${path}`,
        download_url: null,
      },
    };
  }

  private createRepoLabel(ctx: Ctx): Reply {
    const repo = this.repoOf(ctx);
    const name = bodyField(ctx.body, "name");
    if (typeof name !== "string") return invalid([{ resource: "Label", code: "missing_field", field: "name" }]);
    const problem = labelNameProblem(name);
    if (problem) return problem;
    const color = normalizeColor(bodyField(ctx.body, "color") ?? "ededed");
    if (color === null) return invalid([{ resource: "Label", code: "invalid", field: "color" }]);
    if (this.findLabel(repo, name)) return invalid([{ resource: "Label", code: "already_exists", field: "name" }]);
    const description = bodyField(ctx.body, "description");
    const label = this.createLabel(repo, name, color, typeof description === "string" ? description : null);
    return { status: 201, json: this.labelJson(repo, label) };
  }

  private updateRepoLabel(ctx: Ctx): Reply {
    const repo = this.repoOf(ctx);
    const label = this.findLabel(repo, ctx.params.name!);
    if (!label) return notFound();
    const newName = bodyField(ctx.body, "new_name");
    const color = bodyField(ctx.body, "color");
    const description = bodyField(ctx.body, "description");
    if (typeof newName === "string") {
      const problem = labelNameProblem(newName);
      if (problem) return problem;
      const clash = this.findLabel(repo, newName);
      if (clash && clash.id !== label.id) return invalid([{ resource: "Label", code: "already_exists", field: "name" }]);
    }
    const newColor = color === undefined ? label.color : normalizeColor(color);
    if (newColor === null) return invalid([{ resource: "Label", code: "invalid", field: "color" }]);
    if (typeof newName === "string") {
      repo.labelIndex.delete(label.name.toLowerCase());
      label.name = newName;
      repo.labelIndex.set(newName.toLowerCase(), label.id);
    }
    label.color = newColor;
    if (description !== undefined) label.description = typeof description === "string" ? description : null;
    return { status: 200, json: this.labelJson(repo, label) };
  }

  private setIssueLabels(ctx: Ctx, mode: "add" | "replace"): Reply {
    const names = labelNameList(ctx.body);
    if (names === null) return invalid([{ resource: "Label", code: "missing_field", field: "labels" }]);
    const repo = this.repoOf(ctx);
    const issue = this.issueOf(repo, Number(ctx.params.n));
    const ids = this.resolveLabels(repo, names);
    if (!Array.isArray(ids)) return ids;
    issue.labelIds = mode === "replace" ? ids : [...issue.labelIds, ...ids.filter((id) => !issue.labelIds.includes(id))];
    this.touch(issue);
    return { status: 200, json: this.issueLabelsJson(repo, issue) };
  }

  private listIssues(ctx: Ctx): Reply {
    const repo = this.repoOf(ctx);
    const state = ctx.query.get("state") ?? "open";
    const wanted = (ctx.query.get("labels") ?? "").split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
    const assignee = ctx.query.get("assignee")?.toLowerCase();
    const since = sinceParam(ctx);
    const issues = [...repo.issues.values()]
      .filter((i) => {
        if (state !== "all" && i.state !== state) return false;
        if (i.updatedAt < since) return false;
        if (assignee !== undefined && assignee !== "*" && !i.assignees.some((a) => a.toLowerCase() === assignee)) return false;
        const names = i.labelIds.map((id) => this.labelById(repo, id).name.toLowerCase());
        return wanted.every((w) => names.includes(w));
      })
      .sort((a, b) => b.number - a.number);
    return this.list(ctx, issues, (i) => this.issueJson(repo, i));
  }

  private updateIssue(ctx: Ctx): Reply {
    if (!isRecord(ctx.body)) return invalid([{ resource: "Issue", code: "invalid", field: "body" }]);
    const b = ctx.body;
    const repo = this.repoOf(ctx);
    const issue = this.issueOf(repo, Number(ctx.params.n));
    if (b.state !== undefined && b.state !== "open" && b.state !== "closed") {
      return invalid([{ resource: "Issue", code: "invalid", field: "state" }]);
    }
    let labelIds: number[] | undefined;
    if (b.labels !== undefined) {
      const names = labelNameList({ labels: b.labels });
      if (names === null) return invalid([{ resource: "Issue", code: "invalid", field: "labels" }]);
      const ids = this.resolveLabels(repo, names);
      if (!Array.isArray(ids)) return ids;
      labelIds = ids;
    }
    if (labelIds !== undefined) issue.labelIds = labelIds;
    if (typeof b.title === "string") issue.title = b.title;
    if (typeof b.body === "string") issue.body = b.body;
    else if (b.body === null) issue.body = "";
    if (b.assignees !== undefined) {
      const logins = stringList(b.assignees);
      if (logins !== null) issue.assignees = this.assignable(logins, []);
    } else if (b.assignee !== undefined) {
      issue.assignees = typeof b.assignee === "string" ? this.assignable([b.assignee], []) : [];
    }
    if (b.state === "open" || b.state === "closed") {
      this.setIssueState(issue, b.state, typeof b.state_reason === "string" ? b.state_reason : null);
    }
    this.touch(issue);
    return { status: 200, json: this.issueJson(repo, issue) };
  }

  private createCheckRun(ctx: Ctx): Reply {
    if (!isRecord(ctx.body)) return invalid([{ resource: "CheckRun", code: "missing_field", field: "name" }]);
    const b = ctx.body;
    if (typeof b.name !== "string" || b.name === "") return invalid([{ resource: "CheckRun", code: "missing_field", field: "name" }]);
    if (typeof b.head_sha !== "string" || b.head_sha === "") {
      return invalid([{ resource: "CheckRun", code: "missing_field", field: "head_sha" }]);
    }
    const t = this.now();
    const run: CheckRunRecord = {
      id: this.nextCheckRunId++, name: b.name, headSha: b.head_sha, status: "queued", conclusion: null, output: null,
      detailsUrl: null, externalId: null, startedAt: t, completedAt: null,
    };
    const problem = this.applyCheckRunFields(run, b);
    if (problem) return problem;
    const repo = this.repoOf(ctx);
    repo.checkRuns.set(run.id, run);
    return { status: 201, json: this.checkRunJson(repo, run) };
  }

  private updateCheckRun(ctx: Ctx): Reply {
    const repo = this.repoOf(ctx);
    const existing = repo.checkRuns.get(Number(ctx.params.id));
    if (!existing) return notFound();
    if (!isRecord(ctx.body)) return invalid([{ resource: "CheckRun", code: "invalid", field: "body" }]);
    // Validate on a copy so a rejected update changes nothing.
    const run: CheckRunRecord = { ...existing };
    if (typeof ctx.body.name === "string") run.name = ctx.body.name;
    const problem = this.applyCheckRunFields(run, ctx.body);
    if (problem) return problem;
    repo.checkRuns.set(run.id, run);
    return { status: 200, json: this.checkRunJson(repo, run) };
  }

  /** Applies status, conclusion, output and the optional fields; a 422 reply when invalid. */
  private applyCheckRunFields(run: CheckRunRecord, b: Record<string, unknown>): Reply | null {
    if (b.status !== undefined && (typeof b.status !== "string" || !CHECK_STATUSES.has(b.status))) {
      return invalid([{ resource: "CheckRun", code: "invalid", field: "status" }]);
    }
    if (b.conclusion !== undefined && b.conclusion !== null &&
        (typeof b.conclusion !== "string" || !CHECK_CONCLUSIONS.has(b.conclusion))) {
      return invalid([{ resource: "CheckRun", code: "invalid", field: "conclusion" }]);
    }
    if (b.output !== undefined) {
      if (!isRecord(b.output) || typeof b.output.title !== "string" || typeof b.output.summary !== "string") {
        return invalid([{ resource: "CheckRun", code: "missing_field", field: "output" }]);
      }
    }
    if (typeof b.conclusion === "string") {
      run.conclusion = b.conclusion;
      run.status = "completed";
      run.completedAt = typeof b.completed_at === "string" ? Date.parse(b.completed_at) : this.now();
    } else if (typeof b.status === "string") {
      if (b.status === "completed" && run.conclusion === null) {
        return { status: 422, json: { message: "Invalid request.\n\nWhen status is completed, conclusion is required.", documentation_url: DOCS, status: "422" } };
      }
      run.status = b.status;
    }
    if (isRecord(b.output)) run.output = { ...(run.output ?? {}), ...b.output };
    if (typeof b.details_url === "string") run.detailsUrl = b.details_url;
    if (typeof b.external_id === "string") run.externalId = b.external_id;
    if (typeof b.started_at === "string") run.startedAt = Date.parse(b.started_at);
    return null;
  }
}

// ---------------------------------------------------------------------------

function readBody(req: IncomingMessage, done: (outcome: BodyOutcome) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    // Keep draining past the limit so the client can read our 413 instead of a reset.
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  });
  req.on("error", () => req.destroy());
  req.on("end", () => {
    if (tooLarge) return done({ kind: "too-large" });
    if (size === 0) return done({ kind: "ok", body: undefined });
    try {
      done({ kind: "ok", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown });
    } catch {
      done({ kind: "bad-json" });
    }
  });
}

function send(res: ServerResponse, reply: Reply, requestId: string, now: number): void {
  const headers: Record<string, string | number> = {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(Math.floor(now / 1000) + 3600),
    "x-ratelimit-used": "1",
    "x-ratelimit-resource": "core",
    "x-github-request-id": requestId,
    "x-github-media-type": "github.v3; format=json",
    ...reply.headers,
  };
  let payload: string | undefined;
  if (reply.status === 204) {
    payload = undefined;
  } else if (reply.text !== undefined) {
    headers["content-type"] = "text/plain; charset=utf-8";
    payload = reply.text;
  } else if (reply.json !== undefined) {
    headers["content-type"] = "application/json; charset=utf-8";
    payload = JSON.stringify(reply.json);
  }
  if (payload !== undefined) headers["content-length"] = Buffer.byteLength(payload);
  res.writeHead(reply.status, headers);
  res.end(payload);
}

function notFound(message = "Not Found"): Reply {
  return { status: 404, json: { message, documentation_url: DOCS, status: "404" } };
}

function invalid(errors: Array<Record<string, unknown>>): Reply {
  return { status: 422, json: { message: "Validation Failed", errors, documentation_url: DOCS, status: "422" } };
}

function secondaryRateLimit(retryAfterSeconds: number, requestId: string): Reply {
  return {
    status: 403,
    headers: { "retry-after": String(retryAfterSeconds) },
    json: {
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
        `If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
      documentation_url: SECONDARY_LIMIT_DOCS,
      status: "403",
    },
  };
}

function labelNameProblem(name: string): Reply | null {
  if (name.length === 0) return invalid([{ resource: "Label", code: "missing_field", field: "name" }]);
  if ([...name].length > MAX_LABEL_NAME) {
    return invalid([{
      resource: "Label", code: "custom", field: "name",
      message: `name is too long (maximum is ${MAX_LABEL_NAME} characters)`,
    }]);
  }
  return null;
}

function commentBodyProblem(body: unknown): Reply | null {
  if (typeof body !== "string" || body === "") {
    return invalid([{ resource: "IssueComment", code: "missing_field", field: "body" }]);
  }
  if (body.length > MAX_COMMENT_BODY) {
    return invalid([{
      resource: "IssueComment", code: "custom", field: "body",
      message: `body is too long (maximum is ${MAX_COMMENT_BODY} characters)`,
    }]);
  }
  return null;
}

/** GitHub takes 6 hex digits; a leading "#" is tolerated here and stripped. */
function normalizeColor(color: unknown): string | null {
  if (typeof color !== "string") return null;
  const hex = color.startsWith("#") ? color.slice(1) : color;
  return /^[0-9a-fA-F]{6}$/.test(hex) ? hex.toLowerCase() : null;
}

/** `{labels: ["a"]}`, `{labels: [{name: "a"}]}` or a bare array, as GitHub accepts. */
function labelNameList(body: unknown): string[] | null {
  const list = Array.isArray(body) ? body : isRecord(body) ? body.labels : undefined;
  if (!Array.isArray(list)) return null;
  const names: string[] = [];
  for (const item of list) {
    if (typeof item === "string") names.push(item);
    else if (isRecord(item) && typeof item.name === "string") names.push(item.name);
    else return null;
  }
  return names;
}

function stringList(value: unknown): string[] | null {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return null;
  return value as string[];
}

function bodyField(body: unknown, field: string): unknown {
  return isRecord(body) ? body[field] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function intParam(value: string | null, fallback: number): number {
  const n = value === null ? NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : fallback;
}

function sinceParam(ctx: Ctx): number {
  const since = ctx.query.get("since");
  const ms = since === null ? NaN : Date.parse(since);
  return Number.isFinite(ms) ? ms : -Infinity;
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** GitHub timestamps have whole seconds. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A stable id per login (FNV-1a), so ids survive reset() and match across runs. */
export function userId(login: string): number {
  let h = 0x811c9dc5;
  const lower = login.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    h ^= lower.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return 10_000 + ((h >>> 0) % 90_000_000);
}

/** `owner/repo` of a route's params, lower-cased. */
function fullName(ctx: Ctx): string {
  return `${ctx.params.owner}/${ctx.params.repo}`.toLowerCase();
}
