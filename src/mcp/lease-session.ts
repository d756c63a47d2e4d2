/**
 * What one MCP session holds: its leases, each renewed at a third of its
 * TTL while the session lives (renewals.ts), the events of the caller's
 * leases (session-watch.ts), the places it waits in, and the leases that
 * someone else ended since the agent last asked (`takeLost`). The session
 * is one holder: its `instance` goes with every call, so that twenty agents
 * sharing one token are twenty holders. Closed cleanly, it releases what it
 * holds, unless told to keep it (then each lease ends at its expiry, as it
 * does when the process dies).
 *
 * Every call goes through the client package, so that retries, errors and
 * the token's handling are the client's.
 */
import {
  type IssueRef,
  type LeaseAnswer,
  type LeaseClient,
  type LeaseEvent,
  LeaseLostError,
  LeaseNotHolderError,
  type ListedLease,
  type LostReason,
  type NextFilters,
  type NextScope,
  type ParsedRef,
  type QueuedAnswer,
  formatRef,
} from "@issue-leases/client";
import { keepRenewing } from "./renewals.js";
import { watchSession } from "./session-watch.js";
import type { LostLease } from "./tool-schemas.js";

export interface SessionOptions {
  client: LeaseClient;
  /** This session's holder instance, or how to name it at first use (after the host's `initialize` said who it is). */
  instance: string | (() => string);
  /** Leave the leases to expire when the session closes, instead of releasing them. */
  keepOnClose: boolean;
  /** A lease of the session ended by someone else: tell the agent now. */
  lost(lease: LostLease): void;
  /** A lease came to the session from its place in line. */
  gained(lease: LeaseAnswer): void;
  /** For the operator's log: never a token. */
  log(level: "info" | "warn", message: string): void;
}

interface Held {
  ref: ParsedRef;
  lease: LeaseAnswer;
  ttl: string | undefined;
  stop: AbortController;
}

const ENDING = new Set(["lease.released", "lease.expired", "lease.ended", "lease.handed_off"]);

export const keyOf = (ref: { owner: string; repo: string; issue: number }): string => `${ref.owner}/${ref.repo}#${ref.issue}`.toLowerCase();

export class LeaseSession {
  private named: string | null = null;
  private readonly held = new Map<string, Held>();
  private readonly waiting = new Map<string, AbortController>();
  private readonly work = new Set<Promise<void>>();
  private notices: LostLease[] = [];
  private readonly stop = new AbortController();
  private watching = false;
  private closed: Promise<void> | null = null;

  constructor(private readonly o: SessionOptions) {}

  /** The holder instance every call of the session names. */
  get instance(): string {
    this.named ??= typeof this.o.instance === "string" ? this.o.instance : this.o.instance();
    return this.named;
  }

  get client(): LeaseClient {
    return this.o.client;
  }

  /** Whether the session holds (and renews) this issue's lease. */
  holds(ref: ParsedRef): boolean {
    return this.held.has(keyOf(ref));
  }

  /** The issues the session holds, for its lease resources. */
  leases(): LeaseAnswer[] {
    return [...this.held.values()].map((h) => h.lease);
  }

  /** The leases someone else ended since the last call: each told once. */
  takeLost(): LostLease[] {
    const lost = this.notices;
    this.notices = [];
    return lost;
  }

  async claim(ref: ParsedRef, o: { ttl?: string; note?: string; wait?: boolean }): Promise<LeaseAnswer | QueuedAnswer> {
    const options = { instance: this.instance, ...(o.ttl !== undefined ? { ttl: o.ttl } : {}), ...(o.note !== undefined ? { note: o.note } : {}) };
    const sentAt = Date.now();
    const answer = o.wait ? await this.o.client.claimOrQueue(ref, options) : await this.o.client.claim(ref, options);
    if (answer.outcome === "queued") this.waitInLine(ref, o.ttl);
    else this.hold(ref, answer, o.ttl, sentAt);
    return answer;
  }

  async next(scope: NextScope, filters: NextFilters, ttl: string | undefined): Promise<LeaseAnswer> {
    const sentAt = Date.now();
    const answer = await this.o.client.next(scope, filters, { instance: this.instance, ...(ttl !== undefined ? { ttl } : {}) });
    const [owner = "", repo = ""] = answer.repo.split("/");
    this.hold({ owner, repo, issue: answer.issue }, answer, ttl, sentAt);
    return answer;
  }

  async renew(ref: ParsedRef, ttl: string | undefined): Promise<LeaseAnswer> {
    const sentAt = Date.now();
    const answer = await this.o.client.renew(ref, { instance: this.instance, ...(ttl !== undefined ? { ttl } : {}) });
    this.hold(ref, answer, ttl ?? this.held.get(keyOf(ref))?.ttl, sentAt);
    return answer;
  }

  async release(ref: ParsedRef, note: string | undefined): Promise<LeaseAnswer> {
    const key = keyOf(ref);
    const held = this.held.get(key);
    // Let go first: the stream's event of this release is not a loss.
    this.unhold(key);
    this.waiting.get(key)?.abort();
    try {
      return await this.o.client.release(ref, { instance: this.instance, ...(note !== undefined ? { note } : {}) });
    } catch (error) {
      // Not released (the app did not answer): the session still holds it and keeps renewing.
      if (held && !(error instanceof LeaseNotHolderError)) this.hold(ref, held.lease, held.ttl, Date.now());
      throw error;
    }
  }

  /** The account's live leases, and which of them are this session's. */
  async mine(): Promise<Array<ListedLease & { this_session: boolean }>> {
    const all = await this.o.client.mine();
    return all.map((l) => {
      const [owner = "", repo = ""] = l.repo.split("/");
      return { ...l, this_session: (l.holder.instance ?? null) === this.instance && this.held.has(keyOf({ owner, repo, issue: l.issue })) };
    });
  }

  /**
   * Ends the session: renewals and the watch stop, places in line are left, and the leases are released unless kept
   * (`keep`, default the session's option: an agent that went away without ending its session keeps them until they expire).
   */
  close(keep = this.o.keepOnClose): Promise<void> {
    this.closed ??= this.shut(keep);
    return this.closed;
  }

  private async shut(keep: boolean): Promise<void> {
    const held = [...this.held.values()];
    for (const w of this.waiting.values()) w.abort();
    this.stop.abort();
    for (const h of held) h.stop.abort();
    await Promise.all(this.work);
    if (keep) {
      if (held.length > 0) this.o.log("info", `session ${this.instance} ended: ${held.length} lease(s) kept until they expire`);
      return;
    }
    await Promise.all(
      held.map(async (h) => {
        try {
          await this.o.client.release(h.ref, { instance: this.instance, retries: 1 });
        } catch (error) {
          this.o.log("warn", `session ${this.instance}: releasing ${formatRef(h.ref)} failed (${(error as Error).message}); it ends at its expiry`);
        }
      }),
    );
    this.held.clear();
  }

  private track(work: Promise<void>): void {
    this.work.add(work);
    void work.finally(() => this.work.delete(work));
  }

  /** Holds the lease the answer names (renewing it) when it is this session's. */
  private hold(ref: ParsedRef, answer: LeaseAnswer, ttl: string | undefined, sentAt: number): void {
    if (this.stop.signal.aborted || answer.token === null || answer.holder?.instance !== this.instance) return;
    const key = keyOf(ref);
    // A claim or renewal of a lease held already: its heartbeat starts again from this answer.
    this.held.get(key)?.stop.abort();
    const held: Held = { ref, lease: answer, ttl, stop: new AbortController() };
    this.held.set(key, held);
    // The session's end aborts each held lease's own signal (shut): one signal, no AbortSignal.any kept per lease.
    const stop = held.stop.signal;
    this.track(
      keepRenewing(answer, sentAt, {
        renew: (signal) => this.o.client.renew(ref, { instance: this.instance, ...(ttl !== undefined ? { ttl } : {}), signal }),
        ttl,
        stop,
        renewed: (lease) => (held.lease = lease),
        lost: (reason, cause) => this.lose(key, held, reason, new LeaseLostError(formatRef(ref), reason, held.lease.token, { cause }).message),
        failed: (error) => this.o.log("warn", `session ${this.instance}: renewing ${formatRef(ref)} failed (${(error as Error).message}); trying again until it expires`),
      }),
    );
    this.startWatch();
  }

  private unhold(key: string): void {
    const held = this.held.get(key);
    held?.stop.abort();
    this.held.delete(key);
  }

  private lose(key: string, held: Held, reason: LostReason, message: string): void {
    if (this.held.get(key) !== held || this.stop.signal.aborted) return;
    this.unhold(key);
    const notice: LostLease = { repo: held.lease.repo, issue: held.lease.issue, token: held.lease.token, reason, message };
    this.notices.push(notice);
    this.o.log("info", `session ${this.instance}: ${message}`);
    this.o.lost(notice);
  }

  /** Keeps the session's place in the issue's line (asking again before it lapses) until the lease comes to it. */
  private waitInLine(ref: ParsedRef, ttl: string | undefined): void {
    const key = keyOf(ref);
    if (this.waiting.has(key)) return;
    const stop = new AbortController();
    this.waiting.set(key, stop);
    const signal = AbortSignal.any([stop.signal, this.stop.signal]);
    const sentAt = Date.now();
    this.track(
      this.o.client
        .waitForLease(ref, { instance: this.instance, signal, maxPollMs: 10_000, ...(ttl !== undefined ? { ttl } : {}) })
        .then(
          (lease) => {
            this.hold(ref, lease, ttl, sentAt);
            if (this.holds(ref)) this.o.gained(lease);
          },
          (error: unknown) => {
            if (!signal.aborted) this.o.log("warn", `session ${this.instance}: waiting for ${formatRef(ref)} ended: ${(error as Error).message}`);
          },
        )
        .finally(() => {
          if (this.waiting.get(key) === stop) this.waiting.delete(key);
        }),
    );
  }

  private startWatch(): void {
    if (this.watching) return;
    this.watching = true;
    this.track(
      watchSession({
        client: this.o.client,
        stop: this.stop.signal,
        event: (event) => this.onEvent(event),
        recheck: () => this.track(this.recheck()),
        open: (resumed) => this.o.log("info", `session ${this.instance}: ${resumed ? "resumed" : "watching"} the lease events of its leases`),
        down: (error) => this.o.log("info", `session ${this.instance}: the lease event stream is down (${(error as Error).message}); renewals still notice a lost lease`),
      }),
    );
  }

  private onEvent(event: LeaseEvent): void {
    const [owner = "", repo = ""] = event.repo.split("/");
    const key = keyOf({ owner, repo, issue: event.issue });
    const held = this.held.get(key);
    if (!held || held.lease.token === null) return;
    if (event.token < held.lease.token || (event.token === held.lease.token && !ENDING.has(event.type))) return;
    const reason: LostReason = event.type === "lease.expired" && event.token === held.lease.token ? "expired" : "not_holder";
    this.lose(key, held, reason, new LeaseLostError(formatRef(held.ref), reason, held.lease.token, { event }).message);
  }

  /** Each lease held, checked: one that ended while the stream was not listening is lost now. */
  private async recheck(): Promise<void> {
    await Promise.all(
      [...this.held.entries()].map(async ([key, held]) => {
        if (held.lease.token === null) return;
        try {
          const answer = await this.o.client.verify(held.ref as IssueRef, held.lease.token, { instance: this.instance, signal: this.stop.signal });
          if (!answer.valid) {
            const now = answer.lease?.holder ? `it is held by ${answer.lease.holder.login} now` : "it is free now";
            this.lose(key, held, "not_holder", `lost the lease on ${formatRef(held.ref)}: ${now}`);
          }
        } catch {
          // Nothing learnt: the renewals still notice.
        }
      }),
    );
  }
}
