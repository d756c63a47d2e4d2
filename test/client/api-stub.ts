/**
 * Stand-ins for the lease API in client unit tests: a real HTTP server on
 * 127.0.0.1 (`startApiStub`) and a scripted `fetch` for tests that drive
 * time with fake timers (`scriptedFetch`). Both record every request and
 * answer from the test's handler; a request the handler does not expect
 * fails the test through `unexpected`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  /** Path without the query string, percent-encoded as sent. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
  /** Date.now() when it was made (fake timers move it). */
  at: number;
}

export interface StubAnswer {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
  /** Drop the connection without answering (a network failure). */
  destroy?: boolean;
  /** Never answer (a server that hangs). */
  hang?: boolean;
}

export type StubHandler = (req: StubRequest, index: number) => StubAnswer | Promise<StubAnswer>;

export interface ApiStub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export async function startApiStub(handler: StubHandler): Promise<ApiStub> {
  const requests: StubRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const request = await readRequest(req);
    requests.push(request);
    const answer = await handler(request, requests.length - 1);
    if (answer.hang) return;
    if (answer.destroy) {
      req.socket.destroy();
      return;
    }
    const body = answer.json === undefined ? "" : JSON.stringify(answer.json);
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readRequest(req: IncomingMessage): Promise<StubRequest> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  const url = new URL(req.url ?? "/", "http://stub");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
  return { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers, body: text ? JSON.parse(text) : undefined, at: Date.now() };
}

/**
 * A `fetch` answering from `handler` without a socket: with fake timers, only the client's own timers run.
 * `record` chooses the requests kept in `requests` (default all; `notEvents` leaves out the event stream's).
 */
export function scriptedFetch(handler: StubHandler, record: (req: StubRequest) => boolean = () => true): { fetch: typeof fetch; requests: StubRequest[] } {
  const requests: StubRequest[] = [];
  const fake = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    const request: StubRequest = {
      method: init.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      at: Date.now(),
    };
    if (record(request)) requests.push(request);
    const answer = await handler(request, requests.length - 1);
    if (answer.destroy) throw new TypeError("fetch failed", { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
    if (answer.hang) {
      return new Promise<Response>((_, reject) => {
        const signal = init.signal;
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    return new Response(answer.json === undefined ? null : JSON.stringify(answer.json), {
      status: answer.status,
      headers: { "content-type": "application/json", ...answer.headers },
    });
  };
  return { fetch: fake as typeof fetch, requests };
}

export const LEASE_PATH = "/api/v1/repos/octo-org/widgets/issues/12/lease";

export const EVENTS_PATH = "/api/v1/events";

/** Every request but the event stream's, which withLease asks for beside its renewals. */
export const notEvents = (req: StubRequest) => req.path !== EVENTS_PATH;

/** What an app without the event stream answers it. */
export const NO_STREAM: StubAnswer = { status: 404, json: { error: { code: "not_found", message: "Not Found" } } };

/** An answer as the API gives it. */
export function leaseJson(
  outcome: string,
  holder: { login: string; id: number; instance?: string | null } | null,
  token: number | null,
  expiresAt: string | null,
) {
  return {
    outcome,
    repo: "octo-org/widgets",
    issue: 12,
    holder: holder ? { instance: null, ...holder } : null,
    token,
    expires_at: expiresAt,
  };
}
