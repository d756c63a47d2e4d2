/**
 * The MCP sessions open on this replica (Streamable HTTP: one per
 * `Mcp-Session-Id`), each its own holder with its own leases, bounded per
 * caller and in all as the event streams are (the API's stream slots). A
 * session lives in this process only: a request for it that reaches
 * another replica is answered 404, and the client starts a new session
 * there (the MCP specification's rule). A session whose agent went quiet
 * (no request and no open stream for `idleMs`) is ended without releasing,
 * so its leases expire at their TTL, as a dead agent's do.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { LeaseClient } from "@issue-leases/client";
import { StreamSlots } from "../api/stream-slots.js";
import { fetchFor, type Peer } from "./in-process-fetch.js";
import { instanceFor, MCP_RETRY, mcpSession } from "./mcp-server.js";
import type { McpSettings } from "./mcp-settings.js";

export interface OpenSession {
  id: string | undefined;
  /** The caller it belongs to (identity.ts `callerKey`): another caller's request for it is answered as for no session. */
  caller: string;
  transport: StreamableHTTPServerTransport;
  /** The latest bearer token and peer of the caller's requests: the session's API calls carry them. */
  token: string;
  peer: Peer;
  touch(): void;
  /** A GET stream opened (+1) or closed (-1): an open stream keeps the session alive. */
  streams(delta: number): void;
}

export interface SessionLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class McpSessions {
  private readonly open = new Map<string, OpenSession & { lastSeen: number; openStreams: number; end(keep: boolean): Promise<void> }>();
  private readonly slots: StreamSlots;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly o: { settings: McpSettings; api: Server; version: string; log: SessionLog; clock: () => number },
  ) {
    this.slots = new StreamSlots(o.settings.maxSessions);
    this.sweep = setInterval(() => this.endIdle(), Math.min(60_000, o.settings.idleMs)).unref();
  }

  get size(): number {
    return this.open.size;
  }

  /** The caller's open session of this id, or null (none here, or another caller's). */
  find(id: string, caller: string): OpenSession | null {
    const s = this.open.get(id);
    return s && s.caller === caller ? s : null;
  }

  /**
   * A new session for `caller`, its transport ready for the `initialize`
   * request; null when the caller (or the replica) has as many open as allowed.
   * `instance` and `keep` come from the URL (`?instance=`, `?keep_leases=true`).
   */
  start(caller: string, token: string, peer: Peer, opts: { instance?: string; keep: boolean }): (OpenSession & { abandon(): Promise<void> }) | null {
    const slotKey = `caller ${caller}`;
    if (this.slots.take(slotKey, this.o.settings.maxSessionsPerCaller) !== null) return null;
    let released = false;
    const freeSlot = () => {
      if (!released) this.slots.release(slotKey);
      released = true;
    };
    const entry = {
      id: undefined as string | undefined,
      caller,
      token,
      peer,
      lastSeen: this.o.clock(),
      openStreams: 0,
      touch: () => {
        entry.lastSeen = this.o.clock();
      },
      streams: (delta: number) => {
        entry.openStreams += delta;
        entry.lastSeen = this.o.clock();
      },
    } as unknown as OpenSession & { lastSeen: number; openStreams: number; end(keep: boolean): Promise<void> };
    const client = new LeaseClient({
      baseUrl: "http://localhost/",
      token: () => entry.token,
      fetch: (input, init) => fetchFor(this.o.api, entry.peer)(input, init),
      retry: MCP_RETRY,
      userAgent: "issue-leases-mcp",
    });
    let instance = opts.instance;
    const { server, session } = mcpSession({
      client,
      instance: () => (instance ??= instanceFor(server.server.getClientVersion()?.name)),
      keepOnClose: opts.keep,
      service: { where: "this app's API" },
      version: this.o.version,
      log: (level, message) => this.o.log[level === "warn" ? "warn" : "info"]({ session: entry.id }, `MCP: ${message}`),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        entry.id = id;
        this.open.set(id, entry);
        this.o.log.info({ session: id }, "MCP: a session began");
      },
    });
    let ending: Promise<void> | null = null;
    entry.end = (keep: boolean) =>
      (ending ??= (async () => {
        if (entry.id !== undefined) this.open.delete(entry.id);
        freeSlot();
        await session.close(keep);
        await server.close().catch(() => undefined);
      })());
    // Before connect, so that the SDK's own handler is chained after it: a DELETE from the client ends the session cleanly.
    transport.onclose = () => void entry.end(opts.keep);
    entry.transport = transport;
    void server.connect(transport);
    return Object.assign(entry, {
      // An `initialize` that did not begin a session frees its slot.
      abandon: async () => {
        if (entry.id === undefined) await entry.end(true);
      },
    });
  }

  /** Ends every session (the app is stopping): their leases are kept, to expire unless their agents claim them again elsewhere. */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.open.values()].map((s) => s.end(true)));
  }

  private endIdle(): void {
    const now = this.o.clock();
    for (const s of this.open.values()) {
      if (s.openStreams > 0 || now - s.lastSeen < this.o.settings.idleMs) continue;
      this.o.log.info({ session: s.id }, "MCP: a session was idle too long; ended, its leases left to expire");
      void s.end(true);
    }
  }
}
