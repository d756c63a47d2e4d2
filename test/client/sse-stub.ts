/**
 * A lease API with an event stream, on 127.0.0.1 (node:http), for the
 * client's tests: `GET /api/v1/events` is answered by `stream` (an error,
 * or an open Server-Sent Events connection the test writes to), everything
 * else by `api` as test/client/api-stub.ts answers. Every request is
 * recorded; the test sees each stream connection and writes to it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LeaseEvent } from "@issue-leases/client";
import type { LeaseEvent as AppLeaseEvent } from "../../src/ledger/events/event-types.js";
import { EVENTS_PATH, type StubAnswer, type StubHandler, type StubRequest } from "./api-stub.js";

/** Whether two types are the same, both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The client keeps its own copy of the event's shape (it imports nothing of the app's): `npm run typecheck` fails here when the two drift. */
export const CLIENT_EVENT_IS_THE_APPS: Same<LeaseEvent, AppLeaseEvent> = true;

export interface SseConnection {
  request: StubRequest;
  /** Writes raw text to the stream. */
  write(text: string): void;
  /** Sends `event` as the app does: `id:`, `event:`, `data:`. */
  send(event: LeaseEvent): void;
  /** Ends the stream from the server's side. */
  end(): void;
  /** Whether the client has gone (or the server ended it). */
  closed(): boolean;
}

export interface StreamStub {
  url: string;
  requests: StubRequest[];
  connections: SseConnection[];
  /** Resolves once the stream has `n` connections (polling, generous). */
  connection(n?: number): Promise<SseConnection>;
  close(): Promise<void>;
}

/** `"open"`: a Server-Sent Events connection; an answer: that answer instead (404: an app without the stream). */
export type StreamHandler = (req: StubRequest, index: number) => "open" | StubAnswer;

export async function startStreamStub(api: StubHandler, stream: StreamHandler = () => "open"): Promise<StreamStub> {
  const requests: StubRequest[] = [];
  const connections: SseConnection[] = [];
  let streams = 0;
  const server = createServer(async (req, res) => {
    const request = await readRequest(req);
    requests.push(request);
    if (request.path === EVENTS_PATH) {
      const answer = stream(request, streams++);
      if (answer === "open") return connections.push(openStream(request, res));
      return reply(req, res, answer);
    }
    return reply(req, res, await api(request, requests.length - 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    async connection(n = 1) {
      await waitFor(() => connections.length >= n, `${n} stream connection(s)`);
      return connections[n - 1]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function openStream(request: StubRequest, res: ServerResponse): SseConnection {
  let closed = false;
  res.on("close", () => (closed = true));
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const write = (text: string) => {
    if (!closed) res.write(text);
  };
  return {
    request,
    write,
    send: (event) => write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
    end: () => {
      closed = true;
      res.end();
    },
    closed: () => closed,
  };
}

function reply(req: IncomingMessage, res: ServerResponse, answer: StubAnswer): void {
  if (answer.hang) return;
  if (answer.destroy) {
    req.socket.destroy();
    return;
  }
  res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
  res.end(answer.json === undefined ? "" : JSON.stringify(answer.json));
}

async function readRequest(req: IncomingMessage): Promise<StubRequest> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  const url = new URL(req.url ?? "/", "http://stub");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
  return { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers, body: text ? JSON.parse(text) : undefined, at: Date.now() };
}

/** Polls `check` until it holds; fails after `timeoutMs` (generous: the machine's cores are shared). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An event of octo-org/widgets#12 as the app sends it; `fields` override. */
export function leaseEvent(fields: Partial<LeaseEvent> & Pick<LeaseEvent, "id" | "type" | "token">): LeaseEvent {
  return {
    seq: Number(fields.id),
    at: "2026-12-01T12:00:00.000Z",
    repo: "octo-org/widgets",
    issue: 12,
    holder: { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" },
    expires_at: "2026-12-01T13:00:00.000Z",
    actor: { login: "maintainer", id: 7 },
    cause: "maintainer",
    ...fields,
  };
}
