/**
 * `issue-leases agent claim owner/repo#N --wait [--wait-timeout 1h]`: a
 * claim that waits in the issue's line (`LeaseClient.waitForLease`) instead
 * of exiting 75. Each new place in line is told on stderr; SIGINT, SIGTERM
 * and SIGHUP leave the line before exiting 128+N, so that the lease is not
 * handed to a caller who is gone.
 */
import { constants } from "node:os";
import { formatRef, type LeaseAnswer, type LeaseClient, ordinal, type ParsedRef, type QueuedAnswer } from "@issue-leases/client";
import type { AgentIo } from "./agent-args.js";
import { holderText } from "./agent-commands.js";

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export interface WaitSettings {
  ttl: string | undefined;
  instance: string | undefined;
  timeoutMs: number | undefined;
  json: boolean;
}

/** The lease once it is the caller's, or the status to exit with when a signal ended the wait. */
export async function waitInLine(client: LeaseClient, ref: ParsedRef, s: WaitSettings, io: AgentIo): Promise<LeaseAnswer | { signalled: number }> {
  const name = formatRef(ref);
  const stop = new AbortController();
  let received: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    stop.abort(new Error(`${signal} received`));
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);
  let position: number | null = null;
  const onQueued = (place: QueuedAnswer) => {
    if (place.position === position) return;
    position = place.position;
    if (s.json) io.err(JSON.stringify({ event: "queued", issue: name, position: place.position, queued_until: place.queued_until, lease: place.lease }));
    else io.err(`issue-leases: ${ordinal(place.position)} in line for ${name}, held by ${holderText(place.lease)} with token ${place.lease.token}; waiting`);
  };
  try {
    return await client.waitForLease(ref, { ttl: s.ttl, instance: s.instance, timeoutMs: s.timeoutMs, signal: stop.signal, onQueued });
  } catch (error) {
    if (received === null) throw error;
    io.err(`issue-leases: ${received} received: left the line for ${name}`);
    return { signalled: 128 + (constants.signals[received] ?? 0) };
  } finally {
    for (const sig of SIGNALS) process.off(sig, onSignal);
  }
}
