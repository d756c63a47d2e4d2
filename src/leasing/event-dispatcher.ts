/**
 * The outgoing webhooks' dispatcher: reads the ledger's events after its
 * cursor (`webhooks`), finds each repository's targets in its config, and
 * queues one `webhook` effect per event and target, moving the cursor in the
 * same transaction (`advanceEventCursor`, a compare-and-set). So an event is
 * queued once, whatever crashes: a pass that dies queued nothing and moved
 * nothing, and of two replicas reading the same events only the first to
 * move the cursor queues them; the other finds the cursor moved and reads on.
 *
 * Woken when events are committed (`watchEvents`: this process's, and every
 * replica's on PostgreSQL), with a poll in case a wake-up was missed.
 *
 * A config that cannot be read (GitHub does not answer) stops the pass at
 * that event, to be tried again with backoff: events are sent in order. A
 * repository whose config has not been read for `configPatienceMs` since
 * its first failure, or that GitHub says is not the app's to read (401, 403,
 * 404: the installation is gone or suspended), has its events passed over,
 * logged, so that one repository cannot hold up every other's. A broken
 * config (`invalid`) sends nothing; nor does an event of a repository whose
 * installation the ledger does not know.
 */
import type { Logger } from "pino";
import type { StoredEvent } from "../ledger/events/event-types.js";
import type { EventLog } from "../ledger/events/event-roles.js";
import type { NewEffect } from "../ledger/outbox/outbox-types.js";
import type { ConfigResult } from "../config/config.js";
import { webhookEffect } from "../outbox/effects.js";
import { SerialPasses } from "../outbox/serial-passes.js";

/** The cursor's name in the ledger. */
export const WEBHOOKS_CURSOR = "webhooks";

export interface DispatcherOptions {
  ledger: Pick<EventLog, "eventsAfter" | "eventCursor" | "advanceEventCursor" | "lastEventPos" | "watchEvents">;
  /** The config of the event's repository (the config cache); throws when it cannot be read now. */
  config: (stored: StoredEvent) => Promise<ConfigResult>;
  clock: () => number;
  log: Pick<Logger, "info" | "warn" | "error">;
  /** Called after a pass queued deliveries (the drainer's kick). */
  onQueued?: () => void;
  /** Events read per pass. */
  batchSize?: number;
  /** How often to look when nothing woke the dispatcher. */
  pollMs?: number;
  /** How long a repository's config is waited for, from its first failure, before its events are passed over. */
  configPatienceMs?: number;
  /** The longest wait between tries while the ledger or a config does not answer. */
  maxBackoffMs?: number;
}

type Queued = Array<{ repoId: number; issue: number; effect: NewEffect }>;

export class EventDispatcher {
  private readonly o: Required<Omit<DispatcherOptions, "onQueued">> & Pick<DispatcherOptions, "onQueued">;
  private running: Promise<void> | null = null;
  private stopping = false;
  private kicked = false;
  /** Ends the wait between passes: on a kick when not backing off, and on stop. */
  private wake: ((kick: boolean) => void) | null = null;
  private unwatch: (() => void) | null = null;
  private readonly passes = new SerialPasses(() => this.pass());
  /** Repositories whose config did not read, since when. */
  private readonly failing = new Map<number, number>();

  constructor(opts: DispatcherOptions) {
    this.o = { batchSize: 200, pollMs: 5000, configPatienceMs: 15 * 60_000, maxBackoffMs: 60_000, ...opts };
  }

  /**
   * Starts the loop. With no cursor yet (the first start with webhooks on),
   * the cursor begins at the newest event: turning webhooks on does not send
   * a day of kept events to every target.
   */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.unwatch = this.o.ledger.watchEvents(() => this.kick());
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unwatch?.();
    this.unwatch = null;
    this.wake?.(false);
    await this.running;
    this.running = null;
  }

  /** Asks for a pass soon. */
  kick(): void {
    this.kicked = true;
    this.wake?.(true);
  }

  /** One pass: queues the deliveries of up to a batch of events. Answers how many events it moved past (0: none new, or another replica moved first). */
  dispatchOnce(): Promise<number> {
    return this.passes.once();
  }

  /** Dispatches until no event is left after the cursor (for tests and shutdown). */
  dispatchAll(maxPasses = 10_000): Promise<void> {
    return this.passes.all(maxPasses);
  }

  private async begin(): Promise<void> {
    const { ledger, clock, log } = this.o;
    if ((await ledger.eventCursor(WEBHOOKS_CURSOR)) !== 0) return;
    const newest = await ledger.lastEventPos();
    if (newest > 0 && (await ledger.advanceEventCursor(WEBHOOKS_CURSOR, 0, newest, [], clock()))) {
      log.info({ position: newest }, "webhooks: first start; events made before now are not sent");
    }
  }

  private async pass(): Promise<number> {
    const { ledger, clock } = this.o;
    const from = await ledger.eventCursor(WEBHOOKS_CURSOR);
    const events = await ledger.eventsAfter(from, { limit: this.o.batchSize });
    if (events.length === 0) return 0;
    const { to, queued, blocked } = await this.deliveries(events, from);
    if (to === from) throw blocked;
    const moved = await ledger.advanceEventCursor(WEBHOOKS_CURSOR, from, to, queued, clock());
    if (!moved) {
      // Another replica queued them: read on from where it left the cursor.
      this.kicked = true;
      return 0;
    }
    if (queued.length > 0) this.o.onQueued?.();
    // Stopped short at an event whose config did not answer: the loop backs off before trying it again.
    if (blocked !== null) throw blocked;
    return events.filter((e) => e.pos <= to).length;
  }

  /** The deliveries of the events, up to the first whose config cannot be read yet (`to`: the last event handled). */
  private async deliveries(events: StoredEvent[], from: number): Promise<{ to: number; queued: Queued; blocked: unknown }> {
    const { clock, log } = this.o;
    const configs = new Map<number, Promise<ConfigResult>>();
    const queued: Queued = [];
    let to = from;
    for (const stored of events) {
      let config: ConfigResult;
      try {
        // No installation on record: no way to read its config (nor anyone to have named a target).
        if (stored.installation === 0) {
          to = stored.pos;
          continue;
        }
        let loading = configs.get(stored.repoId);
        if (!loading) configs.set(stored.repoId, (loading = this.o.config(stored)));
        config = await loading;
        this.failing.delete(stored.repoId);
      } catch (error) {
        const now = clock();
        const since = this.failing.get(stored.repoId) ?? now;
        this.failing.set(stored.repoId, since);
        const status = (error as { status?: unknown } | null)?.status;
        const refused = status === 401 || status === 403 || status === 404 || status === 410;
        if (!refused && now - since <= this.o.configPatienceMs) return { to, queued, blocked: error };
        log.error({ err: error, event: stored.event.id, repo: stored.event.repo, status }, "webhooks: the repository's config cannot be read; its event is not sent");
        to = stored.pos;
        continue;
      }
      if (config.ok) {
        for (const target of config.config.webhooks) if (target.events.includes(stored.event.type)) queued.push(webhookEffect(stored, target));
      }
      to = stored.pos;
    }
    return { to, queued, blocked: null };
  }

  private async loop(): Promise<void> {
    const { log } = this.o;
    let failures = 0;
    let begun = false;
    while (!this.stopping) {
      let moved = 0;
      try {
        if (!begun) await this.begin();
        begun = true;
        moved = await this.dispatchOnce();
        failures = 0;
      } catch (error) {
        failures += 1;
        log.warn({ err: error, failures }, "webhooks: dispatching events failed; will try again");
      }
      if (this.stopping) break;
      if (failures === 0 && (moved > 0 || this.kicked)) {
        this.kicked = false;
        continue;
      }
      const idle = failures > 0 ? Math.min(this.o.maxBackoffMs, 1000 * 2 ** (failures - 1)) : this.o.pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idle);
        this.wake = (kick) => {
          // New events do not cut a backoff short: what failed would fail again.
          if (kick && failures > 0) return;
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
