/**
 * The inventory's rules, written once for both stores: which snapshot of an
 * issue applies over the row stored (events come in any order), and which
 * stored rows a ready filter matches. The stores only read and write rows.
 */
import type { IssueSnapshot, ReadyFilter, ReadyIssue } from "./inventory-types.js";

/** What a store keeps of an issue before a write: enough to decide, and to find its label rows. */
export interface StoredIssue {
  state: string;
  updated_at: number;
  labels: string;
  created_at: number;
}

/**
 * Whether `snap` is written over `before`: an issue deleted or transferred
 * away stays gone (GitHub never gives its number to another issue, and a late
 * event must not bring it back); otherwise the newer payload wins, and one of
 * the same second (GitHub's times are whole seconds) too, as it came later.
 */
export function snapshotApplies(before: StoredIssue | undefined, snap: IssueSnapshot): boolean {
  if (!before) return true;
  if (before.state === "gone") return false;
  if (snap.state === "gone") return true;
  return snap.updatedAt >= before.updated_at;
}

/** The lower-cased, distinct label names a snapshot's label rows carry (open issues only: a closed one is in no ready list). */
export function labelKeys(labels: readonly string[], state: string): string[] {
  return state === "open" ? [...new Set(labels.map((l) => l.toLowerCase()))] : [];
}

/** A stored row as the ready walk reads it (either store; SQLite's 0/1 where PostgreSQL has booleans). */
export interface ReadyRow {
  repo_id: number;
  repo: string | null;
  issue: number;
  title: string;
  labels: string;
  assignees: string;
  milestone: string | null;
  author_id: number | null;
  author_login: string | null;
  created_at: number;
  blocked_by_open: number | null;
  open_sub_issues: number | null;
  /** An open pull request closes it (pull_links). */
  pulls: number | boolean;
  /** It has a live lease. */
  held: number | boolean;
}

/** The filter with its defaults, its label names lower-cased once. */
export interface ReadyTest {
  all: string[];
  any: string[];
  none: string[];
  milestone?: string;
  assignee: "none" | "none_or_me";
  me?: number;
  noOpenPull: boolean;
  notBlocked: boolean;
  notParent: boolean;
  order: string[];
}

export function readyTest(f: ReadyFilter): ReadyTest {
  const lower = (xs: string[] | undefined) => [...new Set((xs ?? []).map((x) => x.toLowerCase()))];
  return {
    all: lower(f.labels),
    any: lower(f.anyLabels),
    none: lower(f.excludeLabels),
    ...(f.milestone !== undefined ? { milestone: f.milestone } : {}),
    assignee: f.assignee ?? "none_or_me",
    ...(f.me !== undefined ? { me: f.me } : {}),
    noOpenPull: f.noOpenPull ?? true,
    notBlocked: f.notBlocked ?? true,
    notParent: f.notParent ?? true,
    order: lower(f.order),
  };
}

const truthy = (v: number | boolean) => v === true || v === 1;

/** Whether an open issue's row matches the filter (whether it is held or not). `labels`: its names lower-cased. */
export function rowMatches(t: ReadyTest, row: ReadyRow, labels: ReadonlySet<string>): boolean {
  if (!t.all.every((l) => labels.has(l))) return false;
  if (t.any.length > 0 && !t.any.some((l) => labels.has(l))) return false;
  if (t.none.some((l) => labels.has(l))) return false;
  if (t.milestone !== undefined && row.milestone?.toLowerCase() !== t.milestone.toLowerCase()) return false;
  const assignees = JSON.parse(row.assignees) as Array<{ id: number }>;
  if (assignees.length > 0 && (t.assignee === "none" || !assignees.some((a) => a.id === t.me))) return false;
  if (t.noOpenPull && truthy(row.pulls)) return false;
  if (t.notBlocked && (row.blocked_by_open ?? 0) > 0) return false;
  if (t.notParent && (row.open_sub_issues ?? 0) > 0) return false;
  return true;
}

export function readyIssueOf(row: ReadyRow): ReadyIssue {
  const assignees = JSON.parse(row.assignees) as Array<{ login: string }>;
  return {
    repoId: Number(row.repo_id),
    repo: row.repo ?? "",
    issue: Number(row.issue),
    title: row.title,
    labels: JSON.parse(row.labels) as string[],
    createdAt: Number(row.created_at),
    authorId: row.author_id === null ? null : Number(row.author_id),
    authorLogin: row.author_login,
    assignees: assignees.map((a) => a.login),
  };
}

export const isHeld = (row: ReadyRow): boolean => truthy(row.held);
