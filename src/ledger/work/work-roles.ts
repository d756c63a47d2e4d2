/** Leases that follow the work, as the handlers of pull requests, comments and labels use them (the rules are work-rules.ts's). */
import type { Applied, Holder, IssueKey } from "../leases/lease-types.js";
import type { ActivityOptions, ActivityResult, ExemptOptions, ExemptResult, LinkPullOptions, LinkPullResult } from "./work-types.js";

/** Leases that follow the work (work-rules.ts): pull requests that close issues, the holder's activity, exempt labels. */
export interface FollowLinks {
  /**
   * Pull request `pull` (its repository and number), by `author`, is open and
   * closes `issues` of its repository, as GitHub said when its lease check
   * was posted; `[]` when it closed (merged or not) or closes nothing now.
   * Records which open pull requests close which issues, and in the same
   * transaction: a live lease on one of them held by `author` does not expire
   * while any of their open pull requests closes it (`heldBy: pull`,
   * `expiresAt` null, no reminder); one whose last such pull request went
   * gets `opts.resume` from `opts.at`. Each lease changed gets a `follow`
   * history row and the effects `opts.effects` gives. Applying the same
   * links again changes nothing and writes nothing. The links outlive
   * tenures: a holder who claims an issue their open pull request closes is
   * held by it from the claim.
   */
  linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult>;
  /**
   * `actor` did something on issue `key` (a comment), or on pull request
   * `key` (a push, a comment, a review): each live lease they hold on that
   * issue, or on an issue that pull request closes (by anyone's links), and
   * that time holds, gets a new term of its current length from `now`: the
   * length of the term that the claim, `/renew`, resume or activity renewal
   * before it started (`expiresAt - start`), so `expiresAt` becomes
   * `now + length` (never earlier than it was). The reminder of the old term
   * is cancelled; the new term gets its own. Writes no effect, ever. Checked
   * first with one indexed read and no write; `opts.policy` is asked only
   * when there is something to renew. `duplicate` is present only when a
   * transaction ran (nothing else records the delivery).
   */
  renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }>;
  /**
   * The issue `key` now carries (`exempt`) or no longer carries one of the
   * repository's `exempt_labels`. Its live lease, if any, does not expire while
   * it does (`heldBy: exempt`); when the last one goes, it gets `opts.resume`
   * from `now` (unless an open pull request still holds it). No effect is
   * written: the labels that show the lease do not change.
   */
  setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>>;
}
