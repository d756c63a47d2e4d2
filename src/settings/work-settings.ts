/**
 * What the app does on its own, from the environment: the sweeper's and the
 * outbox's pace, the inventory's fills, how long lease events are kept, and
 * outgoing webhooks (their secret and where they may go).
 */
import { formatDuration, parseDuration } from "../commands/parse-duration.js";
import { DEFAULT_EVENTS_KEEP_MS, MIN_EVENTS_KEEP_MS } from "../events/retention.js";
import type { TargetPolicy } from "../events/target-guard.js";
import { DEFAULT_INVENTORY, type InventorySettings } from "../leasing/inventory-fill.js";
import { DEFAULT_LOCK_MS } from "../outbox/drainer-options.js";
import { numberSetting } from "./parse-number.js";
import { type Env, SettingError } from "./setting-row.js";
import { givenValue, rawValue } from "./settings-table.js";

export interface WorkSettings {
  /** How often leases are swept (SWEEP_INTERVAL_MS). */
  sweepIntervalMs: number;
  /** How long an effect stays with a replica that stopped extending it (OUTBOX_LOCK_MS). */
  outboxLockMs: number;
  inventory: InventorySettings;
  /** How long lease events are kept (EVENTS_KEEP). */
  eventsKeepMs: number;
}

export function workSettings(env: Env): WorkSettings {
  return {
    sweepIntervalMs: numberSetting(env, "SWEEP_INTERVAL_MS", 60_000, { whole: true, min: 1, what: "a whole number of milliseconds, 1 or more" }),
    outboxLockMs: numberSetting(env, "OUTBOX_LOCK_MS", DEFAULT_LOCK_MS, { whole: true, min: 1, what: "a whole number of milliseconds, 1 or more" }),
    inventory: inventorySettings(env),
    eventsKeepMs: eventsKeepMs(env),
  };
}

/** INVENTORY_RECONCILE (a duration, or 0 or off: never) and INVENTORY_FILL_MAX_PAGES (1 or more). */
export function inventorySettings(env: Env): InventorySettings {
  const every = givenValue(env, "INVENTORY_RECONCILE");
  const reconcileMs = every === undefined ? DEFAULT_INVENTORY.reconcileMs : every === "0" || every === "off" ? 0 : parseDuration(every);
  if (reconcileMs === null) throw new SettingError(`INVENTORY_RECONCILE is not a duration (such as 6h or 30m, or off): ${every}`);
  const maxPages = numberSetting(env, "INVENTORY_FILL_MAX_PAGES", DEFAULT_INVENTORY.maxPages, { whole: true, min: 1, what: "a whole number from 1" });
  return { reconcileMs, maxPages };
}

/** `EVENTS_KEEP` in ms: a duration of a day or more, so that a stream client can resume after a night offline. */
export function eventsKeepMs(env: Env): number {
  const text = givenValue(env, "EVENTS_KEEP");
  if (text === undefined) return DEFAULT_EVENTS_KEEP_MS;
  const ms = parseDuration(text);
  if (ms === null) throw new SettingError(`EVENTS_KEEP is not a duration (such as 7d, 2w or 36h): ${JSON.stringify(text)}`);
  if (ms < MIN_EVENTS_KEEP_MS) {
    throw new SettingError(`EVENTS_KEEP is ${formatDuration(ms)}: keep lease events at least a day (1d), so that a stream client can resume after a night offline`);
  }
  return ms;
}

/** Where outgoing webhooks may go: loopback and private ranges only with the operator's `EVENTS_WEBHOOK_ALLOW_PRIVATE=1`. */
export function targetPolicy(env: Env): TargetPolicy {
  return { allowPrivate: rawValue(env, "EVENTS_WEBHOOK_ALLOW_PRIVATE") === "1" };
}

export interface OutgoingWebhooks {
  /** EVENTS_WEBHOOK_SECRET: every installation's key is derived from it; null: no webhook is sent. */
  secret: string | null;
  policy: TargetPolicy;
}

export function outgoingWebhooks(env: Env): OutgoingWebhooks {
  return { secret: rawValue(env, "EVENTS_WEBHOOK_SECRET") || null, policy: targetPolicy(env) };
}
