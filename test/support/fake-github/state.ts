/**
 * The fake's data, what a test seeds and inspects (FakeGitHub's methods of
 * those names; server.ts delegates here), and the lookups the route
 * handlers share: repos with their issues, labels, comments, check runs,
 * config files and permissions, org members, refused assignees, the
 * board's sign-in and API callers' tokens.
 */
import { forbidden, notFound, type Reply } from "./replies.js";
import { fullName } from "./request-fields.js";
import type { Ctx } from "./route-table.js";
import {
  newOAuthState,
  type ApiCaller,
  type CommentRecord,
  type InteractionLimit,
  type IssueRecord,
  type LabelRecord,
  type OAuthState,
  type RepoRecord,
} from "./records.js";
import type { IssueSeed, Permission, PullRequestSeed, TokenSeed } from "./types.js";
import { labelNameProblem } from "./validation.js";

export class FakeState {
  repos = new Map<string, RepoRecord>();
  orgMembers = new Map<string, Set<string>>();
  refusedAssignees = new Set<string>();
  /** Logins a GraphQL `user(login:)` found: GitHub knows every account, and the fake then knows their node ids. */
  lookedUpUsers = new Set<string>();
  /** While a request is handled: the app's comments it posted (`owner/name#issue`), by REST or by GraphQL's addComment. */
  posted: string[] | null = null;
  nextCheckRunId = 1;
  oauth: OAuthState = newOAuthState();
  readonly apiTokens = new Map<string, ApiCaller>();
  readonly uninstalled = new Set<string>();
  /** Lower-cased owner -> lower-cased logins it blocks. */
  blocks = new Map<string, Set<string>>();
  /** Lower-cased owner -> the interaction limit on all its repositories. */
  ownerLimits = new Map<string, InteractionLimit>();
  private nextRepoId = 100_001;
  private nextLabelId = 1;
  private nextCommentId = 1;

  constructor(readonly now: () => number) {}

  /** The data reset() clears; the server clears its logs and faults. */
  clear(): void {
    this.repos = new Map();
    this.orgMembers = new Map();
    this.refusedAssignees = new Set();
    this.lookedUpUsers = new Set();
    this.nextRepoId = 100_001;
    this.nextLabelId = 1;
    this.nextCommentId = 1;
    this.nextCheckRunId = 1;
    this.oauth = newOAuthState();
    this.apiTokens.clear();
    this.uninstalled.clear();
    this.blocks = new Map();
    this.ownerLimits = new Map();
  }

  // --- seeding and inspection ----------------------------------------------

  addRepo(repo: string, opts: { id?: number; defaultBranch?: string; private?: boolean } = {}): void {
    const record = this.repoByFullName(repo);
    if (opts.id !== undefined) record.id = opts.id;
    if (opts.private !== undefined) record.private = opts.private;
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
    const key = this.issueKey(r, issue);
    const keyOf = (other: { repo?: string; issue: number }) => {
      const repo = other.repo === undefined ? r : this.repoByFullName(other.repo);
      this.issueOf(repo, other.issue);
      return this.issueKey(repo, other.issue);
    };
    if (seed.blockedBy !== undefined) {
      for (const old of record.blockedBy) this.drop(this.issueAt(old)?.issue.blocking, key);
      record.blockedBy = [...new Set(seed.blockedBy.map(keyOf))];
      for (const blocker of record.blockedBy) this.issueAt(blocker)!.issue.blocking.push(key);
    }
    if (seed.parent !== undefined) {
      if (record.parent !== null) this.drop(this.issueAt(record.parent)?.issue.subIssues, key);
      record.parent = seed.parent === null ? null : keyOf(seed.parent);
      if (record.parent !== null) this.issueAt(record.parent)!.issue.subIssues.push(key);
    }
  }

  /** An issue's key in the relations (records.ts): its repository lower-cased, and its number. */
  issueKey(repo: RepoRecord, n: number): string {
    return `${repo.owner}/${repo.name}#${n}`.toLowerCase();
  }

  issueAt(key: string): { repo: RepoRecord; issue: IssueRecord } | undefined {
    const at = key.lastIndexOf("#");
    const repo = this.repos.get(key.slice(0, at));
    const issue = repo?.issues.get(Number(key.slice(at + 1)));
    return repo && issue ? { repo, issue } : undefined;
  }

  private drop(keys: string[] | undefined, key: string): void {
    const i = keys?.indexOf(key) ?? -1;
    if (i >= 0) keys!.splice(i, 1);
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

  // --- the board's sign-in (OAuth web flow) ----------------------------------

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

  // --- API callers' tokens (issue 10) ---------------------------------------

  addToken(token: string, who: TokenSeed): void {
    const type = who.type ?? (who.login.endsWith("[bot]") ? "Bot" : "User");
    this.apiTokens.set(token, {
      login: who.login, id: who.id, type, repos: who.repos ? new Set(who.repos.map((r) => r.toLowerCase())) : null,
      issues: who.issues ?? "write", newAccount: who.newAccount ?? false, installation: who.installation ?? null,
    });
  }

  uninstall(repo: string): void {
    this.uninstalled.add(repo.toLowerCase());
  }

  // --- moderation ---------------------------------------------------------------

  lockIssue(repo: string, issue: number, locked = true, reason: string | null = null): void {
    const record = this.issueOf(this.repoByFullName(repo), issue);
    record.locked = locked;
    record.lockReason = locked ? reason : null;
  }

  block(owner: string, login: string): void {
    const key = owner.toLowerCase();
    let blocked = this.blocks.get(key);
    if (!blocked) this.blocks.set(key, (blocked = new Set()));
    blocked.add(login.toLowerCase());
  }

  setInteractionLimit(target: string, limit: InteractionLimit | null): void {
    if (target.includes("/")) this.repoByFullName(target).interactionLimit = limit;
    else if (limit) this.ownerLimits.set(target.toLowerCase(), limit);
    else this.ownerLimits.delete(target.toLowerCase());
  }

  /** The limit in force on the repository: its own, else its owner's; none once expired. */
  interactionLimitOf(repo: RepoRecord): InteractionLimit | null {
    const limit = repo.interactionLimit ?? this.ownerLimits.get(repo.owner.toLowerCase()) ?? null;
    return limit && (limit.expiresAt === null || limit.expiresAt > this.now()) ? limit : null;
  }

  /**
   * Whether GitHub lets the caller comment on (and react to) the issue: the token may write issues, the owner has not
   * blocked the account, a locked issue is for writers only, and an interaction limit lets it in (the fake counts
   * contributors as its collaborators: it keeps no commits).
   */
  mayInteract(caller: ApiCaller, repo: RepoRecord, issue: IssueRecord): boolean {
    const login = caller.login.toLowerCase();
    if (caller.issues !== "write") return false;
    // An installation token writes only where its installation reaches ("Resource not accessible by integration").
    if (!this.reaches(caller, repo)) return false;
    if (login === repo.owner.toLowerCase()) return true;
    if (this.blocks.get(repo.owner.toLowerCase())?.has(login)) return false;
    const permission = repo.permissions.get(login);
    const collaborator = permission !== undefined && permission !== "none";
    if (issue.locked && !(permission === "write" || permission === "maintain" || permission === "admin")) return false;
    const limit = this.interactionLimitOf(repo);
    if (limit?.limit === "existing_users" && caller.newAccount && !collaborator) return false;
    if ((limit?.limit === "contributors_only" || limit?.limit === "collaborators_only") && !collaborator) return false;
    return true;
  }

  /** The registered API caller of the request's token, if it is one (the app's own token is not). */
  callerOf(ctx: Ctx): ApiCaller | undefined {
    return ctx.token === null ? undefined : this.apiTokens.get(ctx.token);
  }

  /**
   * What a registered caller may not read of a repository's issues: 404 for a repository it does not see, 403 when it
   * sees it without access to issues, as GitHub answers; null when it may (the app's token may always).
   */
  issuesRefusal(ctx: Ctx): Reply | null {
    const caller = this.callerOf(ctx);
    if (!caller) return null;
    if (!this.tokenSees(ctx)) return notFound();
    if (caller.issues === "none") return forbidden("Resource not accessible by integration");
    return null;
  }

  // --- state helpers --------------------------------------------------------

  repoByFullName(fullName: string): RepoRecord {
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
        checkRuns: new Map(), files: new Map(), permissions: new Map(), private: false, interactionLimit: null,
      };
      this.repos.set(key, record);
    }
    return record;
  }

  repoOf(ctx: Ctx): RepoRecord {
    return this.repo(ctx.params.owner!, ctx.params.repo!);
  }

  issueOf(repo: RepoRecord, n: number): IssueRecord {
    let issue = repo.issues.get(n);
    if (!issue) {
      const t = this.now();
      issue = {
        number: n, title: `Issue ${n}`, body: "", state: "open", stateReason: null, user: "octocat",
        labelIds: [], assignees: [], commentCount: 0, createdAt: t, updatedAt: t, closedAt: null, pull: null,
        locked: false, lockReason: null, blockedBy: [], blocking: [], parent: null, subIssues: [],
      };
      repo.issues.set(n, issue);
    }
    return issue;
  }

  labelById(repo: RepoRecord, id: number): LabelRecord {
    const label = repo.labels.get(id);
    if (!label) throw new Error(`fake-github: dangling label id ${id}`);
    return label;
  }

  findLabel(repo: RepoRecord, name: string): LabelRecord | undefined {
    const id = repo.labelIndex.get(name.toLowerCase());
    return id === undefined ? undefined : repo.labels.get(id);
  }

  createLabel(repo: RepoRecord, name: string, color: string, description: string | null): LabelRecord {
    const label: LabelRecord = { id: this.nextLabelId++, name, color, description };
    repo.labels.set(label.id, label);
    repo.labelIndex.set(name.toLowerCase(), label.id);
    return label;
  }

  /** Label ids for names, creating missing labels as GitHub does; a 422 reply when a name is invalid. */
  resolveLabels(repo: RepoRecord, names: string[]): number[] | Reply {
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
  assignable(wanted: string[], current: string[]): string[] {
    const out = [...current];
    for (const login of wanted) {
      const lower = login.toLowerCase();
      if (this.refusedAssignees.has(lower)) continue;
      if (out.some((existing) => existing.toLowerCase() === lower)) continue;
      out.push(login);
    }
    return out;
  }

  setIssueState(issue: IssueRecord, state: "open" | "closed", reason: string | null): void {
    if (issue.state === state) return;
    issue.state = state;
    issue.closedAt = state === "closed" ? this.now() : null;
    issue.stateReason = state === "closed" ? (reason ?? "completed") : reason === null ? "reopened" : reason;
  }

  createComment(repo: RepoRecord, issueNumber: number, body: string, user: string): CommentRecord {
    const issue = this.issueOf(repo, issueNumber);
    const t = this.now();
    const comment: CommentRecord = { id: this.nextCommentId++, issue: issueNumber, body, user, createdAt: t, updatedAt: t };
    repo.comments.set(comment.id, comment);
    issue.commentCount++;
    issue.updatedAt = t;
    return comment;
  }

  touch(issue: IssueRecord): void {
    issue.updatedAt = this.now();
  }

  /**
   * Whether the request's token sees the repository: registered tokens see their list (an installation's, public
   * repositories besides); the app's (and others') see all, as before.
   */
  tokenSees(ctx: Ctx): boolean {
    const caller = ctx.token === null ? undefined : this.apiTokens.get(ctx.token);
    return this.sees(caller, fullName(ctx));
  }

  /** `tokenSees` for a caller and a lower-cased `owner/name`; an unknown repository is not public. */
  sees(caller: ApiCaller | undefined, full: string): boolean {
    if (!caller?.repos || caller.repos.has(full)) return true;
    return caller.installation !== null && this.repos.get(full)?.private === false;
  }

  /** Whether an installation token's installation reaches the repository (any other token: wherever it sees). */
  reaches(caller: ApiCaller, repo: RepoRecord): boolean {
    return caller.installation === null || !caller.repos || caller.repos.has(`${repo.owner}/${repo.name}`.toLowerCase());
  }
}
