/**
 * How an MCP session on the app's own server calls the API: through the
 * client package, as every agent does, but with a `fetch` that hands each
 * request to the app's own HTTP handlers in this process, as real HTTP
 * over an in-memory connection (Node's server takes any Duplex as a
 * connection). So a tool call is an API request like any other: the same
 * parsing, identity (the caller's token), access, moderation and rate
 * limits, and the same answers, which the client turns into its typed
 * errors. The connection's peer is the MCP request's own (its socket's
 * address and its X-Forwarded-For), so the limits per address see the agent,
 * not the server.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { Duplex } from "node:stream";
import { headersOf, responseOf } from "./keep-alive-fetch.js";

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void | boolean | Promise<void | boolean>;

/** Who the requests come from: the MCP request's peer. */
export interface Peer {
  address: string;
  forwardedFor?: string;
}

/** One end of an in-memory connection: what it writes, the other end reads. */
class PipeEnd extends Duplex {
  other: PipeEnd | null = null;
  remoteAddress: string | undefined;
  remotePort = 0;
  remoteFamily = "IPv4";
  encrypted = false;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.other?.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.other?.push(null);
    callback();
  }

  override _read(): void {}

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const other = this.other;
    this.other = null;
    if (other && !other.destroyed) other.destroy();
    callback(error);
  }

  // What node:http asks of a socket.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  destroySoon(): void {
    this.end();
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

function pipePair(peer: string): [PipeEnd, PipeEnd] {
  const client = new PipeEnd({ allowHalfOpen: true });
  const server = new PipeEnd({ allowHalfOpen: true });
  client.other = server;
  server.other = client;
  server.remoteAddress = peer;
  server.remoteFamily = peer.includes(":") ? "IPv6" : "IPv4";
  return [client, server];
}

/** A server that never listens: it serves what `fetchFor` hands it, through `handlers` in order, else 404. */
export function inProcessServer(handlers: () => readonly HttpHandler[], onError: (error: unknown) => void): Server {
  return createServer(async (req, res) => {
    try {
      for (const handler of handlers()) if (await handler(req, res)) return;
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "not_found", message: "Not Found" } }));
    } catch (error) {
      onError(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
}

/** A `fetch` whose requests `server` answers, as if they came from `peer`. */
export function fetchFor(server: Server, peer: Peer): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init.method ?? (input instanceof Request ? input.method : "GET");
    const headers: Record<string, string> = { host: url.host, connection: "close", ...headersOf(init.headers) };
    if (peer.forwardedFor !== undefined) headers["x-forwarded-for"] = peer.forwardedFor;
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();

    const [clientEnd, serverEnd] = pipePair(peer.address);
    server.emit("connection", serverEnd);
    return new Promise<Response>((resolve, reject) => {
      const req = request({ method, path: `${url.pathname}${url.search}`, headers, createConnection: () => clientEnd as never });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.once("error", (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(signal?.aborted ? signal.reason : error);
      });
      req.once("response", (res) => {
        res.once("close", () => signal?.removeEventListener("abort", onAbort));
        responseOf(res).then(resolve, reject);
      });
      req.end(body);
    });
  };
}
