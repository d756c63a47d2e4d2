/**
 * The fake's HTTP server and what happens to every request around its
 * route's handler: the path taken as GitHub's layout serves it (layout.ts),
 * the body read, armed faults and the content limit applied, the request
 * recorded, the reply sent. Seeding and inspection are the state's
 * (state.ts); the routes are routes.ts's.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Faults } from "./faults.js";
import { readBody, send, type BodyOutcome } from "./http-io.js";
import { JsonShapes } from "./json-shapes.js";
import { DOCS, graphqlRateLimited, notFound, secondaryRateLimit, type Reply } from "./replies.js";
import { kindOf, RouteTable, type Ctx, type RouteMatch } from "./route-table.js";
import { defineRoutes } from "./routes.js";
import { FakeState } from "./state.js";
import { appEnvFor, defaultLayout, LAYOUTS, type Layout, routePath } from "./layout.js";
import type { FakeGitHub, FakeGitHubOptions, InteractionLimit, IssueSeed, Permission, PullRequestSeed, RecordedRequest, TokenSeed } from "./types.js";

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

export class FakeGitHubServer implements FakeGitHub {
  url = "";
  host = "";
  baseUrl = "";
  graphqlUrl = "";
  readonly layout: Layout;
  readonly requests: RecordedRequest[] = [];
  readonly unmatched: RecordedRequest[] = [];
  refused = 0;
  delayMs = 0;

  private readonly now: () => number;
  private readonly server: Server;
  private readonly routes = new RouteTable();
  private readonly data: FakeState;
  private readonly shapes: JsonShapes;
  private readonly faults = new Faults();
  private closed: Promise<void> | null = null;
  private successfulWrites = 0;
  private requestSeq = 0;
  /** Unmatched requests not taken yet (takeUnmatched): the ones before `unmatchedTaken`, kept across reset(). */
  private unmatchedTaken = 0;
  private readonly untakenBeforeReset: RecordedRequest[] = [];

  constructor(opts: FakeGitHubOptions) {
    const slug = opts.appSlug ?? "issue-leases";
    const app = { appId: opts.appId ?? 1, slug, botLogin: `${slug}[bot]`, installationId: opts.installationId ?? 1 };
    this.now = opts.now ?? Date.now;
    this.layout = opts.layout ?? defaultLayout();
    this.data = new FakeState(this.now);
    this.shapes = new JsonShapes(app, this.data, this);
    defineRoutes(this.routes, { data: this.data, shapes: this.shapes, app });
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
        this.baseUrl = `${this.url}${LAYOUTS[this.layout].rest}`;
        this.graphqlUrl = `${this.url}${LAYOUTS[this.layout].graphql}`;
        resolve();
      });
    });
  }

  appEnv(): Record<string, string> {
    return appEnvFor(this.host, this.layout);
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  reset(): void {
    this.untakenBeforeReset.push(...this.unmatched.slice(this.unmatchedTaken));
    this.unmatchedTaken = 0;
    this.requests.length = 0;
    this.unmatched.length = 0;
    this.refused = 0;
    this.data.clear();
    this.faults.clear();
    this.successfulWrites = 0;
  }

  routeList(): string[] {
    return this.routes.list(this.layout);
  }

  takeUnmatched(): RecordedRequest[] {
    const taken = [...this.untakenBeforeReset.splice(0), ...this.unmatched.slice(this.unmatchedTaken)];
    this.unmatchedTaken = this.unmatched.length;
    return taken;
  }

  // --- seeding and inspection: the state's ------------------------------------

  addRepo(repo: string, opts?: { id?: number; defaultBranch?: string; private?: boolean }): void {
    this.data.addRepo(repo, opts);
  }

  addIssue(repo: string, issue: number, seed?: IssueSeed): void {
    this.data.addIssue(repo, issue, seed);
  }

  addPullRequest(repo: string, pr: PullRequestSeed): void {
    this.data.addPullRequest(repo, pr);
  }

  repoLabels(repo: string): Array<{ name: string; color: string; description: string | null }> {
    return this.data.repoLabels(repo);
  }

  issueLabels(repo: string, issue: number): string[] {
    return this.data.issueLabels(repo, issue);
  }

  assignees(repo: string, issue: number): string[] {
    return this.data.assignees(repo, issue);
  }

  comments(repo: string, issue: number): Array<{ id: number; body: string; user: string }> {
    return this.data.comments(repo, issue);
  }

  addComment(repo: string, issue: number, body: string, user?: string): number {
    return this.data.addComment(repo, issue, body, user);
  }

  checkRuns(repo: string): Array<{ id: number; name: string; head_sha: string; status: string; conclusion: string | null; output: unknown }> {
    return this.data.checkRuns(repo);
  }

  setPermission(repo: string, login: string, permission: Permission): void {
    this.data.setPermission(repo, login, permission);
  }

  setOrgMember(org: string, login: string): void {
    this.data.setOrgMember(org, login);
  }

  setConfigFile(repo: string, path: string, content: string | null): void {
    this.data.setConfigFile(repo, path, content);
  }

  refuseAssignee(login: string): void {
    this.data.refuseAssignee(login);
  }

  addToken(token: string, who: TokenSeed): void {
    this.data.addToken(token, who);
  }

  uninstall(repo: string): void {
    this.data.uninstall(repo);
  }

  lockIssue(repo: string, issue: number, locked = true, reason: string | null = null): void {
    this.data.lockIssue(repo, issue, locked, reason);
  }

  block(owner: string, login: string): void {
    this.data.block(owner, login);
  }

  setInteractionLimit(target: string, limit: InteractionLimit | null): void {
    this.data.setInteractionLimit(target, limit);
  }

  setOAuthApp(clientId: string, clientSecret: string): void {
    this.data.setOAuthApp(clientId, clientSecret);
  }

  signInAs(login: string | null): void {
    this.data.signInAs(login);
  }

  setUserInstallations(login: string, installations: Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>): void {
    this.data.setUserInstallations(login, installations);
  }

  liveUserTokens(): string[] {
    return this.data.liveUserTokens();
  }

  // --- faults and the content limit ------------------------------------------

  failNextWritesAfterApplying(n: number, status = 502): void {
    this.faults.failNextWritesAfterApplying(n, status);
  }

  /** The next `n` reads whose path matches `path` answer `status` (reads are never faulted otherwise). */
  failNextReads(path: RegExp, n: number, status = 500): void {
    this.faults.failNextReads(path, n, status);
  }

  failNextWrites(n: number, status = 500): void {
    this.faults.failNextWrites(n, status);
  }

  rateLimitNextWrites(n: number, retryAfterSeconds: number): void {
    this.faults.rateLimitNextWrites(n, retryAfterSeconds);
  }

  rateLimitNextGraphql(n: number): void {
    this.faults.rateLimitNextGraphql(n);
  }

  setContentLimit(opts: { max: number; windowMs: number } | null): void {
    this.faults.setContentLimits(opts ? [opts] : []);
  }

  setContentLimits(limits: Array<{ max: number; windowMs: number }>): void {
    this.faults.setContentLimits(limits);
  }

  setPointsLimit(limit: { max: number; windowMs: number } | null): void {
    this.faults.setPointsLimit(limit);
  }

  writeCount(): number {
    return this.successfulWrites;
  }

  // --- request pipeline -----------------------------------------------------

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const at = this.now();
    const method = (req.method ?? "GET").toUpperCase();
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = q === -1 ? "" : rawUrl.slice(q + 1);
    // Only where GitHub serves it, in this layout: anything else is a 404, recorded as unmatched.
    const routed = routePath(this.layout, rawPath);
    const path = routed ?? rawPath;
    const match = routed === null ? null : this.routes.match(method, routed, this.layout);
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
      match: RouteMatch | null; outcome: BodyOutcome;
    },
  ): void {
    const requestId = `${(++this.requestSeq).toString(16).toUpperCase().padStart(4, "0")}:FAKE`;
    const body = r.outcome.kind === "ok" ? r.outcome.body : undefined;
    // GraphQL is POSTs: a query document reads, a mutation document writes (its route's kind depends on the body).
    const kind = r.match ? kindOf(r.match.route, body) : null;
    const isWrite = WRITE_METHODS.has(r.method) && kind !== "read";
    // Whether a successful answer counts in writeCount(): not when a fault answered 200 in GitHub's place.
    let faulted = false;
    let reply: Reply;
    const posted: string[] = [];
    if (!r.match) {
      reply = notFound();
    } else if (r.outcome.kind === "too-large") {
      reply = { status: 413, json: { message: "Payload Too Large", documentation_url: DOCS, status: "413" } };
    } else if (r.outcome.kind === "bad-json") {
      reply = { status: 400, json: { message: "Problems parsing JSON", documentation_url: DOCS, status: "400" } };
    } else if (kind === "token") {
      // Token requests are auth plumbing, not app behaviour: never recorded, never faulted.
      send(res, this.shapes.tokenReply(), requestId, this.now());
      return;
    } else {
      const fault = isWrite ? this.faults.writeFault(kind === "mutation") : this.faults.readFault(r.path);
      faulted = fault !== undefined;
      // A mutation document is counted once, however many mutations it holds.
      const creates = kind === "content" || kind === "mutation";
      const content = fault === undefined && creates ? this.faults.admitContent(r.at) : null;
      // Points: a write 5, a read 1 (GitHub's REST secondary limit of 900 a minute).
      const limited = content ?? (fault === undefined ? this.faults.admitPoints(r.at, isWrite ? 5 : 1) : null);
      if (fault?.kind === "fail") {
        const message = STATUS_CODES[fault.status] ?? "Error";
        reply = { status: fault.status, json: { message, documentation_url: DOCS, status: String(fault.status) } };
      } else if (fault?.kind === "rate-limit") {
        reply = secondaryRateLimit(fault.retryAfter, requestId);
      } else if (fault?.kind === "graphql-rate-limit") {
        reply = graphqlRateLimited(this.shapes.app.installationId);
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
        this.data.posted = posted;
        try {
          reply = r.match.route.handle(ctx);
        } catch (err) {
          // A bug in the fake, not a GitHub behaviour: make it loud in the test's failure.
          reply = { status: 500, json: { message: `fake-github: ${err instanceof Error ? err.stack : String(err)}` } };
        }
        this.data.posted = null;
        if (fault?.kind === "applied-then-fail") {
          const message = STATUS_CODES[fault.status] ?? "Error";
          reply = { status: fault.status, json: { message, documentation_url: DOCS, status: String(fault.status) } };
        }
      }
    }
    const record: RecordedRequest = { method: r.method, path: r.path, query: r.query, status: reply.status, body, at: r.at, ...(posted.length > 0 ? { posted } : {}) };
    this.requests.push(record);
    if (!r.match || reply.invalid) this.unmatched.push(record);
    if (isWrite && !faulted && !reply.invalid && reply.status < 400) this.successfulWrites++;
    send(res, reply, requestId, this.now());
  }
}
