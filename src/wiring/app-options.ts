/**
 * What the app function is given (`issueLeases(opts)`) and what it hands
 * back once ready (`onReady(runtime)`): tests and benchmarks drive the
 * loops by hand through the runtime.
 */
import type { ConfigCache } from "../config/cache.js";
import type { SenderOptions } from "../events/send-event.js";
import type { EventHub } from "../events/hub.js";
import type { BudgetSettings, GithubWrites } from "../github/budget-settings.js";
import type { EventDispatcher } from "../leasing/event-dispatcher.js";
import type { InventoryFiller, InventorySettings } from "../leasing/inventory-fill.js";
import type { Sweeper } from "../leasing/sweeper.js";
import type { Ledger } from "../ledger/ledger.js";
import type { HttpHandler } from "../mcp/in-process-fetch.js";
import type { AppMetrics } from "../metrics/app-metrics.js";
import type { Drainer } from "../outbox/drainer.js";
import type { AppSettings } from "../settings/app-settings.js";

export interface AppOptions {
  /** Every setting (settings/app-settings.ts); default each one's default: `npm start` gives those of the environment (index.ts). */
  settings?: AppSettings;
  /** How effects write to GitHub; default the settings' (GITHUB_WRITES). */
  writes?: GithubWrites;
  /** The ledger; default: opened from the settings' database (DATABASE_URL). */
  ledger?: Ledger;
  clock?: () => number;
  /** Start the drainer and sweeper loops (tests drive them by hand). Default true. */
  background?: boolean;
  sweepIntervalMs?: number;
  /** This app's id, to recognise its own comments; default the settings' (APP_ID). */
  appId?: number;
  /** Exit cleanly on SIGTERM/SIGINT (the server: index.ts); default false, for tests and benchmarks that embed the app. */
  handleSignals?: boolean;
  drainer?: Partial<ConstructorParameters<typeof Drainer>[0]>;
  /** How long a delivery may take before it is answered 500; default DELIVERY_DEADLINE_MS. */
  deliveryDeadlineMs?: number;
  /** How long a GitHub request may take once sent; default REQUEST_TIMEOUT_MS (tests scale it with the throttle). */
  requestTimeoutMs?: number;
  onReady?: (runtime: Runtime) => void;
  /**
   * GitHub's budget per installation (github/budget.ts): settings over the
   * settings' (tests shrink its windows with the rest of GitHub's
   * pacing); null: none, for tests with GitHub's pacing off.
   */
  budget?: Partial<BudgetSettings> | null;
  /** Metrics to record into (tests); default: on when the settings serve /metrics (METRICS=1 or METRICS_TOKEN), else none. */
  metrics?: AppMetrics | null;
  /** The inventory's fills and reconciles, over the settings' (INVENTORY_RECONCILE, INVENTORY_FILL_MAX_PAGES). */
  inventory?: Partial<InventorySettings>;
  /** Outgoing webhooks' sender, over the settings' (EVENTS_WEBHOOK_SECRET, EVENTS_WEBHOOK_ALLOW_PRIVATE); `secret: null`: off. */
  webhooks?: Partial<Omit<SenderOptions, "secret">> & { secret?: string | null };
}

export interface Runtime {
  ledger: Ledger;
  drainer: Drainer;
  sweeper: Sweeper;
  /** Fills and reconciles the inventory of open issues. */
  inventory: InventoryFiller;
  /** Queues lease events for outgoing webhooks; null without EVENTS_WEBHOOK_SECRET. */
  webhooks: EventDispatcher | null;
  configs: ConfigCache;
  /** The event stream's reader (GET /api/v1/events): its counters are for /metrics. */
  events: EventHub;
  /** GitHub's deliveries at WEBHOOK_PATH and `/`, as the app's server takes them: for a server of one's own (the benchmarks). */
  webhookRoute: HttpHandler;
  /** Stops taking deliveries, finishes what is in flight, and closes the ledger. */
  shutdown(): Promise<void>;
}
