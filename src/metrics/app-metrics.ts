/**
 * The app's Prometheus metrics, on a registry of its own: the process-wide
 * default registry would make two app instances in one process (tests,
 * benchmarks) register the same names and collide.
 *
 * Labels carry only what the app's own code names (event names, operations,
 * outcomes, status classes, effect kinds), never what came from a user: no
 * logins, no issue numbers, no repository names. Their values are bounded,
 * so a flood of deliveries cannot grow the number of series.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Effect, OutboxStats } from "../ledger/outbox/outbox-types.js";
import type { LedgerHealth } from "../ledger/admin/admin-roles.js";
import type { AttemptOutcome } from "../outbox/drainer-options.js";
import type { SweepResult } from "../leasing/sweeper.js";
import type { HubCounters } from "../events/hub.js";
import type { DeliveryOutcome as WebhookOutcome } from "../events/send-event.js";
import type { DeliveredEvent, DeliveryOutcome } from "../webhooks/delivery-outcome.js";
import { eventLabel, methodClass, statusLabel } from "./metric-labels.js";

/** How `GET /metrics` is served: `token` required as a bearer token, or null for anyone who can reach it (METRICS, METRICS_TOKEN: settings/http-settings.ts). */
export interface MetricsSettings {
  token: string | null;
}

/** The outbox gauges give up on the database after this long, so that a scrape still answers. */
const OUTBOX_SCRAPE_TIMEOUT_MS = 2_000;

/** Ledger calls are transactions: milliseconds, seconds when the database struggles. */
const LEDGER_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** From a command to GitHub: a second or so behind the throttle, minutes in an expiry wave or a rate limit. */
const EFFECT_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export class AppMetrics {
  readonly registry = new Registry();
  private readonly deliveries: Counter<"event" | "outcome">;
  private readonly ledgerOps: Counter<"op" | "outcome">;
  private readonly ledgerSeconds: Histogram<"op">;
  private readonly ledgerConflicts: Counter<"kind">;
  private readonly outboxEffects: Gauge<"state">;
  private readonly outboxOldest: Gauge;
  private readonly effectSeconds: Histogram<"kind">;
  private readonly attempts: Counter<"kind" | "outcome">;
  private readonly githubRequests: Counter<"method" | "status">;
  private readonly rateLimits: Counter;
  private readonly sweeps: Counter;
  private readonly swept: Counter<"outcome">;
  private readonly webhookDeliveries: Counter<"outcome" | "status">;
  private outbox: { ledger: LedgerHealth; clock: () => number } | null = null;
  /** The event stream's hub, read on each scrape. */
  private hub: (() => HubCounters) | null = null;
  /** The outbox read of the scrape in progress, shared by the gauges that show it. */
  private reading: Promise<(OutboxStats & { now: number }) | null> | null = null;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.deliveries = new Counter({
      name: "issue_leases_deliveries_total",
      help: "Webhook deliveries by event (name.action) and outcome: handled, duplicate (redelivered), ignored (nothing for the app), failed, rejected (bad signature).",
      labelNames: ["event", "outcome"],
      registers,
    });
    this.ledgerOps = new Counter({
      name: "issue_leases_ledger_operations_total",
      help: "Ledger calls by operation and outcome (acquired, held, limit, renewed, released, not_holder, stale, noted, expired, reminded, duplicate; ok for calls without one; error when it threw).",
      labelNames: ["op", "outcome"],
      registers,
    });
    this.ledgerSeconds = new Histogram({
      name: "issue_leases_ledger_operation_duration_seconds",
      help: "Time a ledger call took, until its transaction committed or failed, by operation.",
      labelNames: ["op"],
      buckets: LEDGER_BUCKETS,
      registers,
    });
    const self = this;
    this.outboxEffects = new Gauge({
      name: "issue_leases_outbox_effects",
      help: "Effects in the outbox by state: pending (waiting for GitHub) or parked (failed too often; retried on restart). Absent when the database did not answer the scrape.",
      labelNames: ["state"],
      registers,
      async collect() {
        const s = await self.outboxStats();
        this.reset();
        if (s) {
          this.set({ state: "pending" }, s.pending);
          this.set({ state: "parked" }, s.parked);
        }
      },
    });
    this.outboxOldest = new Gauge({
      name: "issue_leases_outbox_oldest_pending_age_seconds",
      help: "Age of the oldest pending effect; 0 when none is pending. Absent when the database did not answer the scrape.",
      registers,
      async collect() {
        const s = await self.outboxStats();
        if (s) this.set(s.oldestPendingAt === null ? 0 : Math.max(0, s.now - s.oldestPendingAt) / 1000);
        // reset() would leave a gauge without labels at 0; remove() leaves it out.
        else this.remove();
      },
    });
    this.ledgerConflicts = new Counter({
      name: "issue_leases_ledger_conflicts_total",
      help: "PostgreSQL transactions rolled back for a deadlock or a serialization failure and run again, by kind (deadlock, serialization); always 0 on SQLite.",
      labelNames: ["kind"],
      registers,
    });
    this.effectSeconds = new Histogram({
      name: "issue_leases_effect_latency_seconds",
      help: "Time from an effect's creation (in the command's transaction) to done on GitHub, by effect kind.",
      labelNames: ["kind"],
      buckets: EFFECT_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: "issue_leases_effect_attempts_total",
      help: "Attempts at outbox effects by kind and outcome: completed, dropped (the issue is gone), retried, paused (rate limit), parked, misconfigured (parked: GitHub answered 404 at an address that is not the issue's, such as its GraphQL endpoint; see /health), lost_lock, handed_back (at shutdown).",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.githubRequests = new Counter({
      name: "issue_leases_github_requests_total",
      help: "HTTP requests to GitHub through the app's port (each retry counts) by method class (read, write) and status (2xx, 3xx, the 4xx code, 5xx, network_error).",
      labelNames: ["method", "status"],
      registers,
    });
    this.rateLimits = new Counter({
      name: "issue_leases_github_rate_limited_total",
      help: "Rate limits GitHub answered to the outbox (secondary: 403, 429, or a GraphQL RATE_LIMITED); each paused its installation, a secondary one for at least a minute.",
      registers,
    });
    this.sweeps = new Counter({
      name: "issue_leases_sweeps_total",
      help: "Expiry sweeps run by this process (a replica that did not hold the sweep lock does not count).",
      registers,
    });
    this.swept = new Counter({
      name: "issue_leases_swept_leases_total",
      help: "Leases the sweeps ended (expired) or reminded their holder about (reminded).",
      labelNames: ["outcome"],
      registers,
    });
    // The lease events (issue 23), as the event stream's hub counts them on each scrape: counters grow by what
    // the hub counted since the last scrape. Outgoing webhooks' deliveries are effects of kind `webhook`:
    // issue_leases_effect_attempts_total{kind="webhook",outcome}.
    const seen = { events: new Map<string, number>(), dropped: 0 };
    const hub = () => this.hub?.();
    new Counter({
      name: "issue_leases_events_total",
      help: "Lease events (lease.acquired, lease.renewed, …) this process's event stream read from the ledger, by type: every replica's events, as each replica's stream carries them all.",
      labelNames: ["type"],
      registers,
      collect() {
        for (const [type, n] of Object.entries(hub()?.eventsRead ?? {})) {
          const before = seen.events.get(type) ?? 0;
          if (n > before) this.inc({ type }, n - before);
          seen.events.set(type, Math.max(n, before));
        }
      },
    });
    new Gauge({
      name: "issue_leases_event_stream_clients",
      help: "Clients connected to GET /api/v1/events on this process.",
      registers,
      collect() {
        this.set(hub()?.clients ?? 0);
      },
    });
    new Counter({
      name: "issue_leases_event_stream_dropped_total",
      help: "Event stream clients disconnected because they did not read fast enough (they resume with Last-Event-ID).",
      registers,
      collect() {
        const n = hub()?.clientsDropped ?? 0;
        if (n > seen.dropped) this.inc(n - seen.dropped);
        seen.dropped = Math.max(n, seen.dropped);
      },
    });
    this.webhookDeliveries = new Counter({
      name: "issue_leases_webhook_deliveries_total",
      help: "Lease events POSTed to outgoing webhook targets, by outcome (delivered, failed, no_answer, refused, held_back: not sent, the receiver held back) and status (2xx, 3xx, the 4xx code, 5xx, network_error, not_sent); each retry counts.",
      labelNames: ["outcome", "status"],
      registers,
    });
    // Process CPU, memory, event loop lag and GC: collected on scrape, apart
    // from a GC observer and an event loop delay monitor, both cheap.
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** The ledger whose outbox the gauges read on each scrape. */
  watchOutbox(ledger: LedgerHealth, clock: () => number = Date.now): void {
    this.outbox = { ledger, clock };
  }

  /** The event stream's hub whose counters the events' metrics read on each scrape. */
  watchEvents(counters: () => HubCounters): void {
    this.hub = counters;
  }

  readonly webhookDelivery = (outcome: WebhookOutcome, status: number | null): void => {
    const label = outcome === "held_back" ? "not_sent" : outcome === "delivered" && status === null ? "2xx" : statusLabel(status);
    this.webhookDeliveries.inc({ outcome, status: label });
  };

  /** For the webhook router and route (webhooks/delivery-outcome.ts): a delivery refused unverified names whatever event it likes, so it is "unverified". */
  readonly delivery = (outcome: DeliveryOutcome, event: DeliveredEvent | null): void => {
    this.deliveries.inc({ event: event === null ? "unverified" : eventLabel(event.name, event.action), outcome });
  };

  ledgerOperation(op: string, outcome: string, seconds: number): void {
    this.ledgerOps.inc({ op, outcome });
    this.ledgerSeconds.observe({ op }, seconds);
  }

  /** For the PostgreSQL ledger's `onConflict`: the SQLSTATE of a transaction it rolled back and runs again. */
  readonly ledgerConflict = (sqlstate: string): void => {
    this.ledgerConflicts.inc({ kind: sqlstate === "40P01" ? "deadlock" : "serialization" });
  };

  /** For the Drainer's `onAttempt`: an effect done (completed or dropped) also gives its latency. */
  readonly effectAttempt = (effect: Effect, outcome: AttemptOutcome, now: number): void => {
    this.attempts.inc({ kind: effect.kind, outcome });
    if (outcome === "completed" || outcome === "dropped") this.effectSeconds.observe({ kind: effect.kind }, Math.max(0, now - effect.createdAt) / 1000);
  };

  /** For the GitHub port's `onResponse`: `status` null when no answer came (network error, timeout, abort). */
  readonly githubResponse = (method: string, url: string, status: number | null, body?: unknown): void => {
    this.githubRequests.inc({ method: methodClass(method, url, body), status: statusLabel(status) });
  };

  /** For the drainer's `onRateLimited`. */
  readonly rateLimited = (_installation: number, _waitMs: number): void => {
    this.rateLimits.inc();
  };

  /** For the Sweeper's `onSwept`. */
  readonly sweep = (r: SweepResult): void => {
    this.sweeps.inc();
    if (r.expired > 0) this.swept.inc({ outcome: "expired" }, r.expired);
    if (r.reminded > 0) this.swept.inc({ outcome: "reminded" }, r.reminded);
  };

  /**
   * Reads the outbox for the gauges, once per scrape. A database that fails
   * or is slow leaves them absent from this scrape (stale values would look
   * like a healthy queue), and the scrape answers anyway.
   */
  private outboxStats(): Promise<(OutboxStats & { now: number }) | null> {
    const outbox = this.outbox;
    if (!outbox) return Promise.resolve(null);
    if (!this.reading) {
      const reading = readOutbox(outbox.ledger, outbox.clock);
      this.reading = reading;
      void reading.finally(() => {
        if (this.reading === reading) this.reading = null;
      });
    }
    return this.reading;
  }
}

/** The outbox's stats, or null when the database failed or took longer than OUTBOX_SCRAPE_TIMEOUT_MS. Never rejects. */
async function readOutbox(ledger: LedgerHealth, clock: () => number): Promise<(OutboxStats & { now: number }) | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const s = await Promise.race([
      ledger.outboxStats(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("outbox stats timed out")), OUTBOX_SCRAPE_TIMEOUT_MS);
      }),
    ]);
    return { ...s, now: clock() };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
