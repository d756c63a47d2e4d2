/**
 * A GET of GitHub's REST API with a caller's token, for what the API asks
 * on every claim (the issue): Node's own http(s) client over kept-alive
 * sockets. Node's `fetch` costs about four times the CPU per request (its
 * streams and the WHATWG machinery around them), which a server that reads
 * an issue per claim pays on every one; what is cached (who a token is,
 * which repositories it sees) still goes through `fetch`.
 *
 * Redirects are not followed (a transferred issue answers 301, which is
 * "not here"); the whole request, body included, has one deadline; a body
 * over `maxBytes` is cut off as a failure. A kept-alive socket that GitHub
 * closed as the request was sent is retried once on a fresh one, as Node's
 * documentation advises for idempotent requests.
 */
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";

export interface GetAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON body, or null when it is not JSON. */
  body: unknown;
}

export interface GetOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  /** Default 8 MiB: an issue's body is at most 65,536 characters, its JSON a few times that. */
  maxBytes?: number;
}

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export async function githubGet(url: string, o: GetOptions): Promise<GetAnswer> {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new Error(`not an http(s) URL: ${target.protocol}`);
  const deadline = Date.now() + o.timeoutMs;
  try {
    return await once(target, o, deadline);
  } catch (error) {
    if (!(error as StaleSocket).staleSocket) throw error;
    return once(target, o, deadline);
  }
}

interface StaleSocket extends Error {
  staleSocket?: boolean;
}

function once(target: URL, o: GetOptions, deadline: number): Promise<GetAnswer> {
  const maxBytes = o.maxBytes ?? 8 * 1024 * 1024;
  const client = target.protocol === "https:" ? https : http;
  return new Promise<GetAnswer>((resolve, reject) => {
    const req = client.get(target, { agent: agents[target.protocol as "http:" | "https:"], headers: o.headers });
    let settled = false;
    let answered = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Reset before any answer on a socket used before: GitHub had closed it.
      const code = (error as NodeJS.ErrnoException).code;
      if (!answered && req.reusedSocket && (code === "ECONNRESET" || code === "EPIPE")) Object.assign(error, { staleSocket: true });
      reject(error);
      // Whatever else the sockets say now is about a request already failed.
      req.destroy();
    };
    const timer = setTimeout(() => fail(new Error(`GitHub did not answer within ${o.timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
    req.on("error", fail);
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("error", fail);
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(new Error(`GitHub's answer is over ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        } catch {
          // Not JSON: the caller decides by the status.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
  });
}
