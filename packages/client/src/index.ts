/**
 * `@issue-leases/client` (also `issue-leases/client`): what bot authors
 * import. Only `fetch` and web globals (no dependency, nothing outside this
 * package's folder), so that it runs wherever Node 20 runs.
 */
export { LeaseClient } from "./lease-client.js";
export {
  LeaseApiError,
  LeaseConflictError,
  LeaseHeldError,
  LeaseLostError,
  LeaseNotHolderError,
  LeaseRefusedError,
  LeaseUnavailableError,
  LeaseWaitTimeoutError,
  describeHolder,
  type LostReason,
  NothingReadyError,
  ordinal,
} from "./errors.js";
export { formatRef, parseRef, type ParsedRef } from "./issue-ref.js";
export { type BaseUrlRules, checkBaseUrl, isLoopbackHost } from "./base-url.js";
export { ttlMs, ttlText } from "./ttl.js";
export type { HeldLease, WithLeaseOptions } from "./with-lease.js";
export type { WatchState } from "./lease-watch.js";
export type { EventCause, EventFilter, EventsOptions, LeaseEvent, LeaseEventType, StreamGap } from "./event-types.js";
export { type SseItem, SseParser } from "./sse-parser.js";
export type {
  ClaimOptions,
  IssueRef,
  LeaseAnswer,
  LeaseClientOptions,
  LeaseHolder,
  LeaseOutcome,
  LeaseStatus,
  LeaseView,
  ListedLease,
  NextFilters,
  NextOptions,
  NextScope,
  QueuedAnswer,
  QueuePlace,
  ReadOptions,
  ReleaseOptions,
  RenewOptions,
  RetryOptions,
  Tenure,
  TokenSource,
  Ttl,
  VerifyOptions,
  VerifyResult,
  WaitOptions,
  WriteOptions,
} from "./types.js";
