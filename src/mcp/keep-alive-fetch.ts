/**
 * The `fetch` the stdio server gives its client: node:http(s) requests over
 * kept-alive connections, an answer read whole before it is handed over
 * (an event stream is streamed). Node's own fetch (undici) spends about a
 * millisecond of CPU per call in web streams and its request machinery; an
 * agent's host starts this server beside the agent, on the agent's cores,
 * and every tool call is such a call, so the lighter one is used. What the
 * client asks of a fetch is all here: the method, headers and body, the
 * abort signal, no redirect followed (`redirect: "manual"`), the status,
 * the headers and the body of the answer.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

const NULL_BODY = new Set([101, 204, 205, 304]);

/** A web `Response` of a node:http answer: read whole, or streamed when it is an event stream. */
export function responseOf(res: IncomingMessage): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 500;
  if (NULL_BODY.has(status)) {
    res.resume();
    return Promise.resolve(new Response(null, { status, headers }));
  }
  if (/^text\/event-stream\b/i.test(headers.get("content-type") ?? "")) {
    return Promise.resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, headers }));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.once("end", () => resolve(new Response(Buffer.concat(chunks), { status, headers })));
    res.once("error", reject);
    res.once("close", () => {
      if (!res.complete) reject(new Error("the connection closed before the whole answer came"));
    });
  });
}

export function keepAliveFetch(): typeof fetch {
  const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };
  return (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.reject(new TypeError(`not an http(s) URL: ${url.protocol}`));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"] });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      req.once("error", (error) => {
        done();
        reject(signal?.aborted ? signal.reason : error);
      });
      req.once("response", (res) => {
        res.once("close", done);
        responseOf(res).then(resolve, reject);
      });
      req.end(body);
    });
  };
}
