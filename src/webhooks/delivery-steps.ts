/**
 * What a delivery's work is waiting for: ledger operations and GitHub
 * requests in flight, and the last GitHub request that failed. A delivery
 * past its deadline says which (track-deliveries.ts), rather than guessing:
 * a delivery stuck on an unreachable GitHub was once reported as "is the
 * database answering?" while /health said the database was fine.
 *
 * Learnt from the delivery's async context: the ledger is wrapped once where
 * the app builds it, and GitHub requests are seen through the diagnostics
 * channels of Node's fetch (undici), which Octokit uses. Nothing is noted
 * outside a delivery (the drainer, the sweeper).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import type { Ledger } from "../ledger/ledger.js";

export interface GitHubFailure {
  /** `POST http://github.invalid/api/v3/app/installations/1/access_tokens` */
  request: string;
  /** `getaddrinfo ENOTFOUND github.invalid` */
  message: string;
  /** ENOTFOUND, ECONNREFUSED, … */
  code?: string;
}

export class DeliverySteps {
  /** Ledger operations in flight, by name, with how many of each. */
  readonly ledger = new Map<string, number>();
  /** GitHub requests in flight: "METHOD origin/path" by undici's request object. */
  readonly github = new Map<object, string>();
  /** The last GitHub request of this delivery that got no answer, and why; Octokit may be waiting to retry it. */
  lastGitHubFailure: GitHubFailure | undefined;

  /** What the work is waiting for, as a phrase: "waiting for GitHub to answer GET http://…". */
  describe(): string {
    const failure = this.lastGitHubFailure;
    const failed = failure ? `${failure.request} failed: ${failure.message}` : "";
    const request = this.github.values().next();
    if (!request.done) return `waiting for GitHub to answer ${request.value}${failure ? ` (before it, ${failed})` : ""}`;
    if (this.ledger.size > 0) return `waiting for the ledger (${[...this.ledger.keys()].join(", ")}): is the database answering?`;
    if (failure) return `waiting to retry a GitHub request: ${failed}`;
    return "still running";
  }
}

const current = new AsyncLocalStorage<DeliverySteps>();

/** Runs `work` with `steps` noting what it waits for. */
export function withSteps<T>(steps: DeliverySteps, work: () => Promise<T>): Promise<T> {
  watchGitHub();
  return current.run(steps, work);
}

/** The ledger, noting each operation in flight in the delivery that asked for it. */
export function stepsLedger(inner: Ledger): Ledger {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function" || typeof prop !== "string") return value;
      // A proxy must return a frozen own property as it is (Object.create(ledger, { close: { value } }) makes one).
      const own = Reflect.getOwnPropertyDescriptor(target, prop);
      if (own && !own.configurable && !own.writable) return value;
      return (...args: unknown[]) => {
        const steps = current.getStore();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!steps || !(result instanceof Promise)) return result;
        steps.ledger.set(prop, (steps.ledger.get(prop) ?? 0) + 1);
        const done = () => {
          const left = (steps.ledger.get(prop) ?? 1) - 1;
          if (left > 0) steps.ledger.set(prop, left);
          else steps.ledger.delete(prop);
        };
        result.then(done, done);
        return result;
      };
    },
  });
}

/** `GET http://github.invalid/api/v3/app/installations`: no query (it can carry credentials). */
function requestName(request: { method?: unknown; origin?: unknown; path?: unknown }): string {
  const path = String(request.path ?? "").split("?")[0];
  return `${String(request.method ?? "")} ${String(request.origin ?? "")}${path}`;
}

let watching = false;

/** Subscribed once per process, at the first delivery. */
function watchGitHub(): void {
  if (watching) return;
  watching = true;
  type Message = { request: object & { method?: unknown; origin?: unknown; path?: unknown }; error?: { message?: unknown; code?: unknown } };
  subscribe("undici:request:create", (m) => {
    const { request } = m as Message;
    current.getStore()?.github.set(request, requestName(request));
  });
  // Answered (whatever the status): no longer waiting for it.
  subscribe("undici:request:headers", (m) => {
    current.getStore()?.github.delete((m as Message).request);
  });
  subscribe("undici:request:error", (m) => {
    const { request, error } = m as Message;
    const steps = current.getStore();
    if (!steps) return;
    steps.github.delete(request);
    steps.lastGitHubFailure = {
      request: requestName(request),
      message: String(error?.message ?? error),
      ...(typeof error?.code === "string" ? { code: error.code } : {}),
    };
  });
}
