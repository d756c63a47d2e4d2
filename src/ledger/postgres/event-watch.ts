/**
 * Hearing every replica's events on PostgreSQL: a connection of its own,
 * outside the pool, that LISTENs on the schema's channel (events.ts
 * notifies it at each commit that wrote events) and calls the listeners.
 * Opened with the first listener, closed with the last (and by `close()`).
 *
 * A notice sent while the connection was down is lost, so after every
 * (re)connection the listeners are called once: they read `eventsAfter`
 * from where they were and miss nothing. A connection that fails, closes or
 * stops answering the checks run on it is replaced after a pause that grows
 * to half a minute; nothing here ever throws at the process.
 */
import pg from "pg";
import { synchronousCommit } from "./connection.js";

const CHECK_EVERY_MS = 10_000;
const CHECK_DEADLINE_MS = 10_000;
const CONNECT_TIMEOUT_MS = 3_000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 30_000;

export class PostgresEventWatch {
  private readonly listeners = new Set<() => void>();
  private client: pg.Client | null = null;
  private check: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private retryMs = RETRY_FIRST_MS;
  private closed = false;

  constructor(
    private readonly o: {
      connectionString: string;
      channel: string;
      log: (message: string, error: unknown) => void;
    },
  ) {}

  watch(listener: () => void): () => void {
    // Wrapped, so that one function subscribed twice is called twice and unsubscribed once each.
    const own = () => listener();
    this.listeners.add(own);
    if (!this.client && !this.retry && !this.closed) this.connect();
    return () => {
      this.listeners.delete(own);
      if (this.listeners.size === 0) this.stop();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.stop();
  }

  private call(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the others still hear.
      }
    }
  }

  private connect(): void {
    const settings = synchronousCommit(this.o.connectionString);
    const client = new pg.Client({
      connectionString: settings.connectionString,
      options: settings.options,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      fallback_application_name: "issue-leases events",
    });
    this.client = client;
    // Before connecting: an error without a listener would crash the process.
    client.on("error", (err) => this.lost(client, "the events connection failed", err));
    client.on("end", () => this.lost(client, "the events connection closed", null));
    client.on("notification", (n) => {
      if (this.client === client && n.channel === this.o.channel) this.call();
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${pg.escapeIdentifier(this.o.channel)}`))
      .then(
        () => {
          if (this.client !== client) return;
          this.retryMs = RETRY_FIRST_MS;
          this.check = setInterval(() => this.checkOn(client), CHECK_EVERY_MS);
          this.check.unref();
          // Notices sent while nobody listened are lost: the listeners read what they missed.
          this.call();
        },
        (err: unknown) => this.lost(client, "the events connection could not LISTEN", err),
      );
  }

  private checkOn(client: pg.Client): void {
    const deadline = setTimeout(() => this.lost(client, `the events connection did not answer within ${CHECK_DEADLINE_MS} ms`, null), CHECK_DEADLINE_MS);
    deadline.unref();
    client.query("SELECT 1").then(
      () => clearTimeout(deadline),
      (err: unknown) => {
        clearTimeout(deadline);
        this.lost(client, "the events connection failed", err);
      },
    );
  }

  /** `client` is no longer of use: ended, and another opened after a pause while anyone listens. */
  private lost(client: pg.Client, reason: string, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.check) clearInterval(this.check);
    this.check = null;
    void client.end().catch(() => undefined);
    if (this.closed || this.listeners.size === 0) return;
    this.o.log(`${reason}; listening again in ${this.retryMs} ms`, err);
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.closed && this.listeners.size > 0 && !this.client) this.connect();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private async stop(): Promise<void> {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    if (this.check) clearInterval(this.check);
    this.check = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
