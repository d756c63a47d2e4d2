/**
 * GitHub's JSON for the fake's records, with the URLs, node ids and
 * timestamps GitHub gives them, and its pagination (`per_page`, `page`,
 * `Link`). The URLs point back at the fake, so they work once it listens.
 */
import type { Reply } from "./replies.js";
import type { CheckRunRecord, CommentRecord, IssueRecord, LabelRecord, PullRecord, RepoRecord } from "./records.js";
import { intParam } from "./request-fields.js";
import type { Ctx } from "./route-table.js";
import type { FakeState } from "./state.js";

/** The GitHub App the fake plays: its id, slug, bot account and installation. */
export interface AppIdentity { appId: number; slug: string; botLogin: string; installationId: number }

export class JsonShapes {
  constructor(
    readonly app: AppIdentity,
    private readonly state: FakeState,
    /** The server, whose url and baseUrl are set once it listens. */
    private readonly site: { readonly url: string; readonly baseUrl: string },
  ) {}

  apiRepoUrl(repo: RepoRecord): string {
    return `${this.site.baseUrl}/repos/${repo.owner}/${repo.name}`;
  }

  htmlRepoUrl(repo: RepoRecord): string {
    return `${this.site.url}/${repo.owner}/${repo.name}`;
  }

  userJson(login: string): Record<string, unknown> {
    if (login.toLowerCase() === this.app.botLogin.toLowerCase()) {
      return {
        login: this.app.botLogin, id: 1000 + this.app.appId, node_id: `BOT_${1000 + this.app.appId}`, type: "Bot", site_admin: false,
        html_url: `${this.site.url}/apps/${this.app.slug}`,
      };
    }
    const isOrg = this.state.orgMembers.has(login.toLowerCase());
    const id = userId(login);
    return {
      login, id, node_id: `U_${id}`, type: isOrg ? "Organization" : login.endsWith("[bot]") ? "Bot" : "User",
      site_admin: false, html_url: `${this.site.url}/${login}`,
    };
  }

  appJson(): Record<string, unknown> {
    return {
      id: this.app.appId, slug: this.app.slug, name: this.app.slug, node_id: `A_${this.app.appId}`,
      owner: this.userJson("octocat"), html_url: `${this.site.url}/apps/${this.app.slug}`,
    };
  }

  repoJson(repo: RepoRecord): Record<string, unknown> {
    return {
      id: repo.id, node_id: `R_${repo.id}`, name: repo.name, full_name: `${repo.owner}/${repo.name}`,
      owner: this.userJson(repo.owner), private: repo.private, visibility: repo.private ? "private" : "public", archived: false, disabled: false,
      html_url: this.htmlRepoUrl(repo), url: this.apiRepoUrl(repo), default_branch: repo.defaultBranch,
      // GitHub's count: open issues and pull requests.
      open_issues_count: [...repo.issues.values()].filter((i) => i.state === "open").length,
    };
  }

  labelJson(repo: RepoRecord, label: LabelRecord): Record<string, unknown> {
    return {
      id: label.id, node_id: `LA_${label.id}`, url: `${this.apiRepoUrl(repo)}/labels/${encodeURIComponent(label.name)}`,
      name: label.name, color: label.color, default: false, description: label.description,
    };
  }

  issueLabelsJson(repo: RepoRecord, issue: IssueRecord): Array<Record<string, unknown>> {
    return issue.labelIds.map((id) => this.labelJson(repo, this.state.labelById(repo, id)));
  }

  issueJson(repo: RepoRecord, issue: IssueRecord): Record<string, unknown> {
    const api = this.apiRepoUrl(repo);
    const html = `${this.htmlRepoUrl(repo)}/${issue.pull ? "pull" : "issues"}/${issue.number}`;
    const assignees = issue.assignees.map((login) => this.userJson(login));
    const id = repo.id * 1_000_000 + issue.number;
    return {
      id, node_id: `I_${id}`, url: `${api}/issues/${issue.number}`, repository_url: api, html_url: html,
      number: issue.number, title: issue.title, body: issue.body, state: issue.state, state_reason: issue.stateReason,
      locked: issue.locked, active_lock_reason: issue.lockReason, user: this.userJson(issue.user), labels: this.issueLabelsJson(repo, issue),
      assignee: assignees[0] ?? null, assignees, comments: issue.commentCount, author_association: "NONE",
      created_at: iso(issue.createdAt), updated_at: iso(issue.updatedAt),
      closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
      ...(issue.pull
        ? { pull_request: { url: `${api}/pulls/${issue.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: null } }
        : this.relationsJson(issue)),
    };
  }

  /** An issue's dependencies and sub-issues as GitHub's issue JSON sums them up: open ones, and all. */
  private relationsJson(issue: IssueRecord): Record<string, unknown> {
    const others = (keys: string[]) => keys.map((k) => this.state.issueAt(k)).filter((x) => x !== undefined);
    const open = (xs: Array<{ issue: IssueRecord }>) => xs.filter((x) => x.issue.state === "open").length;
    const [blockers, blocked, subs] = [others(issue.blockedBy), others(issue.blocking), others(issue.subIssues)];
    const parent = issue.parent === null ? undefined : this.state.issueAt(issue.parent);
    const completed = subs.length - open(subs);
    return {
      issue_dependencies_summary: { blocked_by: open(blockers), blocking: open(blocked), total_blocked_by: blockers.length, total_blocking: blocked.length },
      sub_issues_summary: { total: subs.length, completed, percent_completed: subs.length === 0 ? 0 : Math.floor((completed * 100) / subs.length) },
      parent_issue_url: parent ? `${this.apiRepoUrl(parent.repo)}/issues/${parent.issue.number}` : null,
    };
  }

  pullJson(repo: RepoRecord, issue: IssueRecord, pull: PullRecord): Record<string, unknown> {
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

  commentJson(repo: RepoRecord, c: CommentRecord): Record<string, unknown> {
    const api = this.apiRepoUrl(repo);
    const byBot = c.user.toLowerCase() === this.app.botLogin.toLowerCase();
    return {
      id: c.id, node_id: `IC_${c.id}`, url: `${api}/issues/comments/${c.id}`,
      html_url: `${this.htmlRepoUrl(repo)}/issues/${c.issue}#issuecomment-${c.id}`, issue_url: `${api}/issues/${c.issue}`,
      body: c.body, user: this.userJson(c.user), created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
      author_association: byBot ? "NONE" : c.user.toLowerCase() === repo.owner.toLowerCase() ? "OWNER" : "NONE",
      performed_via_github_app: byBot ? this.appJson() : null,
    };
  }

  checkRunJson(repo: RepoRecord, c: CheckRunRecord): Record<string, unknown> {
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

  paginate<T>(ctx: Ctx, items: T[]): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Math.max(1, intParam(ctx.query.get("per_page"), 30)));
    const page = Math.max(1, intParam(ctx.query.get("page"), 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (p: number, rel: string): string => {
      const q = new URLSearchParams(ctx.query);
      q.set("per_page", String(perPage));
      q.set("page", String(p));
      return `<${this.site.url}${ctx.rawPath}?${q.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
    if (page > 1) links.push(link(page - 1, "prev"), link(1, "first"));
    return {
      items: items.slice((page - 1) * perPage, page * perPage),
      headers: links.length > 0 ? { link: links.join(", ") } : {},
    };
  }

  list<T>(ctx: Ctx, items: T[], toJson: (item: T) => unknown): Reply {
    const { items: page, headers } = this.paginate(ctx, items);
    return { status: 200, json: page.map(toJson), headers };
  }

  installationJson(owner?: string): Record<string, unknown> {
    const login = owner ?? this.state.repos.values().next().value?.owner ?? "octocat";
    return {
      id: this.app.installationId, app_id: this.app.appId, app_slug: this.app.slug, account: this.userJson(login),
      target_type: "Organization", repository_selection: "all", permissions: {}, events: [],
    };
  }

  tokenReply(): Reply {
    return {
      status: 201,
      json: {
        token: "ghs_fake",
        expires_at: new Date(this.state.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
        permissions: {},
        repository_selection: "all",
      },
    };
  }
}

/** GitHub timestamps have whole seconds. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Every login an id was made for in this process, by id: GitHub knows every account, and the fake knows every login
 * a test named, in a payload as on the fake (graphql-nodes.ts, loginById).
 */
export const loginsById = new Map<number, string>();

/** A stable id per login (FNV-1a), so ids survive reset() and match across runs. */
export function userId(login: string): number {
  let h = 0x811c9dc5;
  const lower = login.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    h ^= lower.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const id = 10_000 + ((h >>> 0) % 90_000_000);
  if (!loginsById.has(id)) loginsById.set(id, login);
  return id;
}
