/**
 * `readyIssues`, written once for both stores: the walk over a repository's
 * open issues in the order the filter asks, each store giving only its pages
 * of rows (`ReadPage`, read through an index in order). Each label of
 * `order` is a group of its own, read through that label's rows; the rest
 * come after, read through the first label the filter requires (or all open
 * issues), leaving out those of a group before. Several repositories (the
 * organisation form) are merged by creation time, each read in its own
 * order. Without counts the walk stops once `ready` is full, so its cost
 * follows what it reads before the first free issues, not how many are open.
 */
import { isHeld, readyIssueOf, type ReadyRow, readyTest, rowMatches } from "./inventory-rules.js";
import type { ReadyPage, ReadyQuery } from "./inventory-types.js";

/**
 * Up to `n` open issues of `repoId` after `(createdAt, issue)` = `after`, in
 * that order; with `label`, only those carrying it (lower-cased); with
 * `free`, only those no live lease holds at `now` (left out in the
 * database, where passing over a held row costs a probe of the lease's key).
 * Each row says whether a live lease holds it and whether an open pull
 * request closes it.
 */
export type ReadPage = (
  repoId: number,
  label: string | null,
  after: readonly [number, number],
  n: number,
  now: number,
  free: boolean,
) => Promise<ReadyRow[]>;

/** The repositories of one owner the organisation form of `next` walks at most (`inventoryRepos`). */
export const MAX_OWNER_REPOS = 100;

/** Before any created_at (ms since 1970; GitHub's issues are all later). */
const START: readonly [number, number] = [-1, 0];
const MAX_BATCH = 1000;

/** One repository's rows of one group, read a page at a time, each page larger than the one before. */
class Cursor {
  private buf: ReadyRow[] = [];
  private at = 0;
  private after: readonly [number, number] = START;
  private done = false;

  constructor(
    private readonly read: ReadPage,
    private readonly repoId: number,
    private readonly label: string | null,
    private batch: number,
    private readonly now: number,
    private readonly free: boolean,
  ) {}

  async head(): Promise<ReadyRow | null> {
    if (this.at < this.buf.length) return this.buf[this.at]!;
    if (this.done) return null;
    this.buf = await this.read(this.repoId, this.label, this.after, this.batch, this.now, this.free);
    this.at = 0;
    if (this.buf.length < this.batch) this.done = true;
    this.batch = Math.min(this.batch * 2, MAX_BATCH);
    const last = this.buf[this.buf.length - 1];
    if (!last) return null;
    this.after = [Number(last.created_at), Number(last.issue)];
    return this.buf[0]!;
  }

  pop(): void {
    this.at++;
  }
}

const before = (a: ReadyRow, b: ReadyRow) =>
  Number(a.created_at) - Number(b.created_at) || Number(a.repo_id) - Number(b.repo_id) || Number(a.issue) - Number(b.issue);

export async function walkReady(read: ReadPage, q: ReadyQuery, now: number): Promise<ReadyPage> {
  const t = readyTest(q);
  const counts = q.counts ?? true;
  const page: ReadyPage = { ready: [], matched: 0, held: 0 };
  if (q.limit <= 0 && !counts) return page;
  const groups = t.order
    .map((label, i) => ({ driver: label as string | null, earlier: t.order.slice(0, i) }))
    .filter((g) => !t.none.includes(g.driver!))
    .concat([{ driver: t.all[0] ?? null, earlier: t.order }]);
  const batch = counts ? MAX_BATCH : Math.max(32, q.limit + 16);
  for (const group of groups) {
    // Without counts, held issues are not read at all: a fleet holding the oldest thousands costs no more than a probe each.
    const cursors = q.repoIds.map((repoId) => new Cursor(read, repoId, group.driver, batch, now, !counts));
    for (;;) {
      if (!counts && page.ready.length >= q.limit) return page;
      let best: { cursor: Cursor; row: ReadyRow } | null = null;
      for (const cursor of cursors) {
        const row = await cursor.head();
        if (row && (!best || before(row, best.row) < 0)) best = { cursor, row };
      }
      if (!best) break;
      best.cursor.pop();
      const row = best.row;
      const labels = new Set((JSON.parse(row.labels) as string[]).map((l) => l.toLowerCase()));
      if (group.earlier.some((l) => labels.has(l)) || !rowMatches(t, row, labels)) continue;
      page.matched++;
      if (isHeld(row)) page.held++;
      else if (page.ready.length < q.limit && !q.skip?.has(`${row.repo_id}#${row.issue}`)) page.ready.push(readyIssueOf(row));
    }
  }
  return page;
}
