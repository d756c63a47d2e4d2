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

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * What the client reads of an answer: a web `Response` for an event stream (its body is read as a stream); for
 * any other, its status, headers and whole text, without the web streams a `Response` reads its body through (a
 * tool call's JSON is a few hundred bytes: those cost more than the request).
 */
export function responseOf(res: IncomingMessage): Promise<Response> {
  const status = res.statusCode ?? 500;
  const header = (name: string): string | null => {
    const v = res.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  };
  if (!NULL_BODY.has(status) && /^text\/event-stream\b/i.test(header("content-type") ?? "")) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    return Promise.resolve(new Response(streamOf(res), { status, headers }));
  }
  const answer = (text: string) =>
    ({ status, ok: status >= 200 && status < 300, headers: { get: header }, body: null, text: () => Promise.resolve(text) }) as unknown as Response;
  if (NULL_BODY.has(status)) {
    res.resume();
    return Promise.resolve(answer(""));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.once("end", () => resolve(answer(Buffer.concat(chunks).toString("utf8"))));
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
    const headers = headersOf(init.headers);
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

/** An event stream's body as a web stream: each chunk as it comes (the app writes an event at a time, and few). */
function streamOf(res: IncomingMessage): ReadableStream<Uint8Array> {
  // Nothing is handed to the stream once it is closed, errored or cancelled (the web stream would throw).
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const end = (error?: Error) => {
        if (!open) return;
        open = false;
        if (error) controller.error(error);
        else controller.close();
      };
      res.on("data", (chunk: Buffer) => {
        if (open) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      res.once("end", () => end());
      res.once("error", (error) => end(error));
      res.once("close", () => end(res.complete ? undefined : new Error("the event stream's connection closed")));
    },
    cancel() {
      open = false;
      res.destroy();
    },
  });
}

/** A request's headers as node:http takes them; the client gives a plain object, read as it is (no `Headers` built). */
export function headersOf(given: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined || given === null) return headers;
  if (given instanceof Headers || Array.isArray(given)) new Headers(given).forEach((value, name) => (headers[name] = value));
  else for (const [name, value] of Object.entries(given as Record<string, string>)) headers[name.toLowerCase()] = value;
  return headers;
}
