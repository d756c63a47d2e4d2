/**
 * The event stream's settings (read from the environment in
 * settings/http-settings.ts):
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
export interface EventStreamSettings {
  heartbeatMs: number;
  pollMs: number;
  maxStreams: number;
  maxStreamsPerAddress: number;
  maxStreamsPerCaller: number;
  clientBufferBytes: number;
}
