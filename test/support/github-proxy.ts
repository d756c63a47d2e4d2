/**
 * An HTTP pass-through between the app and the fake GitHub, with a hook that
 * runs after GitHub answered a request and before the app hears the answer.
 * That is the window a crash test needs: GitHub has done the write (a
 * comment is posted) but the app never learns it, so its outbox still holds
 * the effect when it dies. A hook before forwarding plays GitHub failing a
 * request outright (a 502 from its edge): nothing reaches the fake.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import { defaultLayout, type Layout } from "./fake-github/layout.js";

export interface ProxiedRequest {
  method: string;
  /** Path as sent, query included. */
  path: string;
  /** The request's JSON body parsed (a GraphQL document's `{ query, variables }`), or undefined. */
  body: unknown;
  /** GitHub's status. */
  status: number;
}

export interface GitHubProxy {
  /** "127.0.0.1:PORT", for GHE_HOST. */
  host: string;
  /** The upstream's layout: the proxy passes paths through as they are. */
  layout: Layout;
  /**
   * Runs before the request is forwarded; a status number answers the
   * request with that status and GitHub's error body instead, and the fake
   * never sees it.
   */
  onRequest: ((r: Omit<ProxiedRequest, "status">) => void | number) | null;
  /**
   * Runs after the upstream answered and before the answer is relayed;
   * `"drop"` destroys the connection instead of answering, a status number
   * answers that status instead (GitHub did the write, its edge failed).
   */
  onResponse: ((r: ProxiedRequest) => void | "drop" | number | Promise<void | "drop" | number>) | null;
  close(): Promise<void>;
}

export async function startGitHubProxy(upstream: { host: string; layout?: Layout }): Promise<GitHubProxy> {
  const [upHost, upPort] = upstream.host.split(":");
  const proxy: GitHubProxy = { host: "", layout: upstream.layout ?? defaultLayout(), onRequest: null, onResponse: null, close: () => close() };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const sent = { method: req.method ?? "GET", path: req.url ?? "/", body: parsed(Buffer.concat(chunks)) };
      const refused = proxy.onRequest?.(sent);
      if (typeof refused === "number") {
        refuse(res, refused);
        return;
      }
      const up = request(
        { host: upHost, port: Number(upPort), method: req.method, path: req.url, headers: req.headers },
        (upRes: IncomingMessage) => {
          const body: Buffer[] = [];
          upRes.on("data", (c: Buffer) => body.push(c));
          upRes.on("end", async () => {
            const verdict = await proxy.onResponse?.({ ...sent, status: upRes.statusCode ?? 0 });
            if (verdict === "drop" || res.destroyed) {
              res.destroy();
              return;
            }
            if (typeof verdict === "number") {
              refuse(res, verdict);
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers).end(Buffer.concat(body));
          });
        },
      );
      up.on("error", () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  proxy.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;

  function parsed(body: Buffer): unknown {
    try {
      return body.length > 0 ? JSON.parse(body.toString("utf8")) : undefined;
    } catch {
      return undefined;
    }
  }

  function refuse(res: ServerResponse, status: number): void {
    const message = STATUS_CODES[status] ?? "Error";
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ message, status: String(status) }));
  }

  function close(): Promise<void> {
    return new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  }
  return proxy;
}
