/**
 * The event stream's settings, from the environment (see .env.example):
 *
 * - `EVENTS_HEARTBEAT_MS`: how often each stream gets a `: keep-alive`
 *   comment, so that proxies do not close a quiet one (default 15000).
 * - `EVENTS_POLL_MS`: how often the ledger is read without a notice of new
 *   events, in case one was missed (default 5000).
 * - `EVENTS_STREAMS_MAX`: streams open at once on this replica (default 1000);
 *   `EVENTS_STREAMS_PER_ADDRESS`: anonymous ones from one client address
 *   (default 10); `EVENTS_STREAMS_PER_CALLER`: those of one GitHub account,
 *   by token or session, wherever they come from (default 100: a fleet's
 *   workers behind one address, each watching its lease). Past any, a new
 *   stream is answered 429.
 * - `EVENTS_CLIENT_BUFFER_BYTES`: what a client may leave unread before it is
 *   disconnected (default 1 MiB); it then resumes with its Last-Event-ID.
 */
import { DEFAULT_BUFFER_BYTES } from "./event-stream.js";

export interface EventStreamSettings {
  heartbeatMs: number;
  pollMs: number;
  maxStreams: number;
  maxStreamsPerAddress: number;
  maxStreamsPerCaller: number;
  clientBufferBytes: number;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, least: number, what: string): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < least) throw new Error(`${name} must be ${what}; it is "${env[name]}"`);
  return n;
}

export function eventStreamSettings(env: NodeJS.ProcessEnv): EventStreamSettings {
  return {
    heartbeatMs: whole(env, "EVENTS_HEARTBEAT_MS", 15_000, 10, "a whole number of milliseconds, 10 or more"),
    pollMs: whole(env, "EVENTS_POLL_MS", 5_000, 10, "a whole number of milliseconds, 10 or more"),
    maxStreams: whole(env, "EVENTS_STREAMS_MAX", 1_000, 0, "a whole number of streams, 0 or more"),
    maxStreamsPerAddress: whole(env, "EVENTS_STREAMS_PER_ADDRESS", 10, 0, "a whole number of streams, 0 or more"),
    maxStreamsPerCaller: whole(env, "EVENTS_STREAMS_PER_CALLER", 100, 0, "a whole number of streams, 0 or more"),
    clientBufferBytes: whole(env, "EVENTS_CLIENT_BUFFER_BYTES", DEFAULT_BUFFER_BYTES, 1_024, "a whole number of bytes, 1024 or more"),
  };
}
