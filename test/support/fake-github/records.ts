/** How the fake keeps GitHub's objects between requests (state.ts holds them). */
import type { Permission } from "./types.js";

export interface LabelRecord { id: number; name: string; color: string; description: string | null }

export interface PullRecord { headSha: string; headRef: string; draft: boolean }

export interface IssueRecord {
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
  /** Locked conversation: only those who may write comment (or react). */
  locked: boolean;
  /** GitHub's `active_lock_reason`: off-topic, too heated, resolved, spam, or null. */
  lockReason: string | null;
  /** Issue dependencies, both ways, by key (state.ts issueKey: `owner/name#number`, the repository lower-cased). */
  blockedBy: string[];
  blocking: string[];
  /** Sub-issues, both ways, by key. */
  parent: string | null;
  subIssues: string[];
}

export interface CommentRecord { id: number; issue: number; body: string; user: string; createdAt: number; updatedAt: number }

export interface CheckRunRecord {
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
export interface OAuthState {
  app: { clientId: string; clientSecret: string } | null;
  signedIn: string | null;
  installations: Map<string, Array<{ id: number; repos: Array<{ repo: string; private: boolean }> }>>;
  codes: Map<string, { login: string; redirect: string }>;
  /** Token -> login. */
  tokens: Map<string, string>;
  next: number;
}

export function newOAuthState(): OAuthState {
  return { app: null, signedIn: null, installations: new Map(), codes: new Map(), tokens: new Map(), next: 1 };
}

export interface RepoRecord {
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
  private: boolean;
  /** The repository's own interaction limit (its owner's, in FakeState, applies when it has none). */
  interactionLimit: InteractionLimit | null;
}

/** An interaction limit, as the REST API names it. */
export interface InteractionLimit { limit: "existing_users" | "contributors_only" | "collaborators_only"; expiresAt: number | null }

/**
 * An API caller's token (addToken): who it is, the repositories it sees (null: all) or, an installation's, reaches, what it may do with their
 * issues (another app's installation token may have none), and whether the account is new (interaction limits).
 */
export interface ApiCaller {
  login: string; id: number; type: "User" | "Bot"; repos: Set<string> | null; issues: "none" | "read" | "write"; newAccount: boolean;
  /** An installation token's installation: `repos` are what it reaches, and public repositories are seen besides. */
  installation: number | null;
}
