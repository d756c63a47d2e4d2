/**
 * A Probot instance running the real app on a real SQLite ledger in a fresh
 * temporary folder, with an injected clock. Deliveries go through
 * `probot.receive`; GitHub is mocked with strict nock (see `githubMock`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterEach, beforeEach } from "vitest";
import { type AppOptions, issueLeases, type Runtime } from "../../src/app.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { holderLabel } from "../../src/github/labels.js";
import { commentPayload, REPO, type UserSpec } from "./payloads.js";

export const APP_ID = 777;

/**
 * No retries or throttling in tests, as in create-probot-app's template. A
 * plain `defaults({ throttle: { enabled: false } })` is not enough in Probot
 * 14: Probot's own throttle options are merged over it (shallowly), which
 * turns throttling back on for installation clients (`app.auth(id)`), and a
 * test then waits 3 s between comments. A defaults function runs after that
 * merge.
 */
export const UnthrottledOctokit = ProbotOctokit.defaults((options: Record<string, any>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...options.throttle, enabled: false },
}));
export const T0 = Date.parse("2026-12-01T12:00:00Z");
export const API = "https://api.github.com";

export interface Harness {
  probot: Probot;
  ledger: SqliteLedger;
  runtime: Runtime;
  now(): number;
  advance(ms: number): void;
  receive(name: string, payload: Record<string, unknown>, id?: string): Promise<void>;
  /** Applies every due outbox effect (the drainer's loop is off in these tests). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startApp(opts: Partial<AppOptions> & { start?: number } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-app-"));
  const ledger = new SqliteLedger(join(dir, "leases.db"));
  let now = opts.start ?? T0;
  let runtime: Runtime | undefined;
  const probot = new Probot({
    appId: APP_ID,
    githubToken: "test-token",
    Octokit: UnthrottledOctokit,
    logLevel: "fatal",
  });
  await probot.load(
    issueLeases({
      ledger,
      clock: () => now,
      background: false,
      handleSignals: false,
      appId: APP_ID,
      // GitHub's pacing is off here (UnthrottledOctokit): its budget too, unless a test gives one.
      budget: null,
      // The nock mock (githubMock) speaks REST: these tests write as GITHUB_WRITES=rest does.
      writes: "rest",
      ...opts,
      onReady: (r) => (runtime = r),
    }),
  );
  if (!runtime) throw new Error("app did not start");
  const rt = runtime;
  return {
    probot,
    ledger,
    runtime: rt,
    now: () => now,
    advance: (ms) => (now += ms),
    receive: (name, payload, id) => probot.receive({ id: id ?? randomUUID(), name, payload } as never),
    drain: () => rt.drainer.drainAll(),
    async close() {
      await rt.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Strict HTTP mocking: no real network, and every test ends with no pending and no unmatched request. */
export function strictNock(): { unmatched: string[]; verify(): void } {
  const unmatched: string[] = [];
  nock.disableNetConnect();
  nock.emitter.removeAllListeners("no match");
  nock.emitter.on("no match", (req: { method?: string; path?: string; options?: { method?: string; path?: string } }) => {
    unmatched.push(`${req.method ?? req.options?.method} ${req.path ?? req.options?.path}`);
  });
  return {
    unmatched,
    verify() {
      const pending = nock.pendingMocks();
      nock.cleanAll();
      if (pending.length > 0 || unmatched.length > 0) {
        throw new Error(`HTTP mocks: pending ${JSON.stringify(pending)}, unmatched ${JSON.stringify(unmatched)}`);
      }
      unmatched.length = 0;
    },
  };
}

/** No `.github/issue-leases.yml` in the repository nor in the organisation's `.github` repository. */
export function noConfigFile(owner = "Codertocat", repo = "Hello-World"): void {
  nock(API).get(`/repos/${owner}/${repo}/contents/.github%2Fissue-leases.yml`).reply(404, { message: "Not Found" });
  nock(API).get(`/repos/${owner}/.github/contents/.github%2Fissue-leases.yml`).reply(404, { message: "Not Found" });
}

/**
 * The repository's `.github/issue-leases.yml`, and none in the organisation's
 * `.github` repository (read too: its `max_leases_per_holder_in_org` applies
 * to a repository with a file of its own).
 */
export function configFile(yaml: string, owner = "Codertocat", repo = "Hello-World", orgYaml: string | null = null): void {
  nock(API).get(`/repos/${owner}/${repo}/contents/.github%2Fissue-leases.yml`).reply(200, yaml, { "content-type": "text/plain" });
  const org = nock(API).get(`/repos/${owner}/.github/contents/.github%2Fissue-leases.yml`);
  if (orgYaml === null) org.reply(404, { message: "Not Found" });
  else org.reply(200, orgYaml, { "content-type": "text/plain" });
}

/** One request the app made to GitHub, as a test's mock received it (path decoded, body parsed). */
export interface GitHubCall {
  method: string;
  path: string;
  body: any;
}

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

const decodePath = (uri: string) => decodeURIComponent(uri.split("?")[0] ?? "");

/**
 * Strict, recording GitHub mocks for one repository: each method mocks
 * exactly one request (nock interceptors are used once), and every request
 * that matched is recorded in order in `calls`, so a test asserts the exact
 * sequence of reads and writes a command cost. Paths are compared decoded
 * (`claimed-by: alice`, not `claimed-by%3A%20alice`). Anything not mocked
 * is an unmatched request, which `strictNock().verify()` reports.
 */
export class GitHubMock {
  readonly calls: GitHubCall[] = [];

  constructor(
    readonly owner = "Codertocat",
    readonly repo = "Hello-World",
  ) {}

  /** `path` absolute (`/repos/...`, `/users/...`, `/app`), or relative to the repository. */
  private full(path: string): string {
    return path.startsWith("/repos/") || path.startsWith("/users/") || path === "/app" ? path : `/repos/${this.owner}/${this.repo}${path}`;
  }

  /** Records a call the app made, its JSON body parsed. */
  private record(method: Method, uri: string, body: nock.Body): void {
    let parsed: unknown = body;
    if (typeof body === "string" && body !== "") {
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = body;
      }
    }
    this.calls.push({ method, path: decodePath(uri), body: parsed });
  }

  /** Mocks one request; `path` is absolute (`/repos/...`) or relative to the repository. */
  expect(method: Method, path: string, status = 200, response: unknown = {}, headers: Record<string, string> = {}): this {
    const full = this.full(path);
    nock(API)
      .intercept((uri: string) => decodePath(uri) === full, method)
      .reply((uri, body) => {
        this.record(method, uri, body);
        return [status, response as nock.Body, headers];
      });
    return this;
  }

  /**
   * Mocks one request whose answer waits for `open()`: `reached` settles when
   * the app has made the request, so a test can act while it is in flight.
   */
  gated(method: Method, path: string, status = 200, response: unknown = []): { reached: Promise<void>; open(): void } {
    const full = this.full(path);
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    let reach!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    nock(API)
      .intercept((uri: string) => decodePath(uri) === full, method)
      .reply((uri, body, callback) => {
        this.record(method, uri, body);
        reach();
        void opened.then(() => callback(null, [status, response as nock.Body]));
      });
    return { reached, open };
  }

  /**
   * The config files (two reads): the repository's YAML, or null for none;
   * and the owner's `.github` repository's (`org`, default none), which is
   * read after a valid file of the repository's own too, for its
   * `max_leases_per_holder_in_org` ("unread": not read, as after a broken
   * file of the repository's own).
   */
  config(yaml: string | null, org: string | null | "unread" = null): this {
    const path = "/contents/.github/issue-leases.yml";
    const file = (full: string, text: string | null) => {
      if (text === null) return this.expect("GET", full, 404, { message: "Not Found" });
      nock(API)
        .intercept((uri: string) => decodePath(uri) === this.full(full), "GET")
        .reply((uri) => {
          this.calls.push({ method: "GET", path: decodePath(uri), body: null });
          return [200, text, { "content-type": "text/plain" }];
        });
      return this;
    };
    file(path, yaml);
    return org === "unread" ? this : file(`/repos/${this.owner}/.github${path}`, org);
  }

  createLabel(): this {
    return this.expect("POST", "/labels", 201, {});
  }
  /** The app asks whether a label exists before it first uses the name in the repository (404: the app makes it). */
  lookup(name: string, exists = false): this {
    return exists ? this.expect("GET", `/labels/${name}`, 200, { name }) : this.expect("GET", `/labels/${name}`, 404, { message: "Not Found" });
  }
  /** Label names the app has asked about (or made): it never asks again. */
  private readonly known = new Set<string>();
  /** Lookups of those of the holder and token labels that are new to the app (each asked about once per repository). */
  lookups(...names: string[]): this {
    for (const name of names) {
      if (this.known.has(name.toLowerCase())) continue;
      this.known.add(name.toLowerCase());
      this.lookup(name);
    }
    return this;
  }
  addLabels(issue = 1): this {
    return this.expect("POST", `/issues/${issue}/labels`, 200, []);
  }
  /** GitHub answers with the issue; `accepted: false` leaves the login out, as it does for bots and people without access. */
  assign(issue: number, login: string, accepted = true): this {
    return this.expect("POST", `/issues/${issue}/assignees`, 201, { number: issue, assignees: accepted ? [{ login }] : [] });
  }
  unassign(issue = 1): this {
    return this.expect("DELETE", `/issues/${issue}/assignees`, 200, { number: issue, assignees: [] });
  }
  removeLabel(issue: number, name: string, status = 200): this {
    return this.expect("DELETE", `/issues/${issue}/labels/${name}`, status, status === 200 ? [] : { message: "Label does not exist" });
  }
  deleteLabel(name: string): this {
    return this.expect("DELETE", `/labels/${name}`, 204, "");
  }
  /** GET the issue, as the app asks when a close falls in the second a lease began: whether it is open again. */
  issue(issue: number, state: "open" | "closed"): this {
    return this.expect("GET", `/issues/${issue}`, 200, { number: issue, state });
  }
  comment(issue = 1): this {
    return this.expect("POST", `/issues/${issue}/comments`, 201, { id: Math.floor(Math.random() * 1e9) });
  }
  /** GET collaborators/:login/permission; `permission` is the legacy field GitHub derives from the role. */
  permission(login: string, role: "admin" | "maintain" | "write" | "triage" | "read"): this {
    const legacy = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    return this.expect("GET", `/collaborators/${login}/permission`, 200, { permission: legacy, role_name: role, user: { login } });
  }

  /** GET /users/:login, as `/claim @user` asks it: the account, or null for none (404). */
  account(login: string, account: { id: number; type?: "User" | "Bot" } | null): this {
    if (account === null) return this.expect("GET", `/users/${login}`, 404, { message: "Not Found" });
    return this.expect("GET", `/users/${login}`, 200, { login, id: account.id, type: account.type ?? "User" });
  }

  /**
   * The calls a claim of a free issue makes: labels (creating `claimed` first
   * when `createClaimed`, and asking whether the holder and token labels exist
   * when `token` is given: names new to the app), assignee, reply.
   */
  claim(issue: number, login: string, opts: { createClaimed?: boolean; assign?: boolean; token?: number } = {}): this {
    if (opts.createClaimed) this.createLabel();
    if (opts.token !== undefined) this.lookups(holderLabel("claimed-by: {holder}", login), `lease #${opts.token}`);
    this.addLabels(issue);
    if (opts.assign ?? true) this.assign(issue, login);
    return this.comment(issue);
  }

  /** The calls that end a lease whose holder and token labels no other lease uses. */
  release(issue: number, login: string, token: number, opts: { assign?: boolean } = {}): this {
    this.removeLabel(issue, "claimed");
    this.deleteLabel(`claimed-by: ${login}`);
    this.deleteLabel(`lease #${token}`);
    if (opts.assign ?? true) this.unassign(issue);
    return this.comment(issue);
  }

  /** `METHOD /path` of each call, relative to the repository where possible (see `releaseRoutes`). */
  routes(from = 0): string[] {
    const prefix = `/repos/${this.owner}/${this.repo}`;
    return this.calls.slice(from).map((c) => `${c.method} ${c.path.startsWith(`${prefix}/`) ? c.path.slice(prefix.length) : c.path}`);
  }
  reads(from = 0): GitHubCall[] {
    return this.calls.slice(from).filter((c) => c.method === "GET");
  }
  writes(from = 0): GitHubCall[] {
    return this.calls.slice(from).filter((c) => c.method !== "GET");
  }
  /** Bodies of the comments posted, in order. */
  comments(from = 0): string[] {
    return this.calls
      .slice(from)
      .filter((c) => c.method === "POST" && /\/issues\/\d+\/comments$/.test(c.path))
      .map((c) => String(c.body.body));
  }
  lastComment(): string {
    const all = this.comments();
    const last = all[all.length - 1];
    if (last === undefined) throw new Error("no comment was posted");
    return last;
  }
  /** How many calls were recorded so far: pass it to `routes`/`writes`/`comments` to look at what came after. */
  mark(): number {
    return this.calls.length;
  }
}

/** Registers beforeEach/afterEach that start a fresh app and strict mocks per test, and close and verify them after. */
export function useApp(opts: Partial<AppOptions> & { start?: number } = {}): {
  readonly h: Harness;
  readonly gh: GitHubMock;
} {
  let h: Harness | undefined;
  let gh: GitHubMock | undefined;
  let mock: ReturnType<typeof strictNock> | undefined;
  beforeEach(async () => {
    mock = strictNock();
    gh = new GitHubMock();
    h = await startApp(opts);
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    mock?.verify();
  });
  return {
    get h() {
      if (!h) throw new Error("no app: use inside a test");
      return h;
    },
    get gh() {
      if (!gh) throw new Error("no mocks: use inside a test");
      return gh;
    },
  };
}

/**
 * Has `author` claim `issue` and applies the outbox, mocking the calls a
 * claim costs. `first`: the repository's first command in this app (the
 * config file is read, and found missing, and `claimed` is created).
 */
/** The routes, in order, of the calls `GitHubMock.release` expects: how a lease ends on GitHub. */
export function releaseRoutes(issue: number, login: string, token: number): string[] {
  return [
    `DELETE /issues/${issue}/labels/claimed`,
    `DELETE /labels/claimed-by: ${login}`,
    `DELETE /labels/lease #${token}`,
    `DELETE /issues/${issue}/assignees`,
    `POST /issues/${issue}/comments`,
  ];
}

export async function claimFor(
  h: Harness,
  gh: GitHubMock,
  author: UserSpec,
  opts: { issue?: number; body?: string; first?: boolean } = {},
): Promise<void> {
  const issue = opts.issue ?? 1;
  if (opts.first) gh.config(null);
  await h.receive("issue_comment", commentPayload({ body: opts.body ?? "/claim", author, issue }));
  const lease = await h.runtime.ledger.current({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue }, h.now());
  gh.claim(issue, author.login, { createClaimed: opts.first, token: lease?.token });
  await h.drain();
}

/** The logins a comment would @-mention: outside code spans, HTML comments and escapes. */
export function mentionsIn(body: string): string[] {
  const visible = body
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/(`+)[\s\S]*?\1/g, "");
  return Array.from(visible.matchAll(/(?<![\w`])@([A-Za-z0-9](?:[-_]?[A-Za-z0-9])*(?:\[bot\])?)/g), (m) => m[1]!);
}
