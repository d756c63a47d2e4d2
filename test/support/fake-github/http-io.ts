/**
 * The fake's side of the wire: a request's JSON body in (past 1 MiB it is
 * drained and refused), a reply out with the rate-limit and request-id
 * headers GitHub sends on every answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply } from "./replies.js";

const MAX_BODY_BYTES = 1024 * 1024;

export type BodyOutcome = { kind: "ok"; body: unknown } | { kind: "too-large" } | { kind: "bad-json" };

export function readBody(req: IncomingMessage, done: (outcome: BodyOutcome) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    // Keep draining past the limit so the client can read our 413 instead of a reset.
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  });
  req.on("error", () => req.destroy());
  req.on("end", () => {
    if (tooLarge) return done({ kind: "too-large" });
    if (size === 0) return done({ kind: "ok", body: undefined });
    try {
      done({ kind: "ok", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown });
    } catch {
      done({ kind: "bad-json" });
    }
  });
}

export function send(res: ServerResponse, reply: Reply, requestId: string, now: number): void {
  const headers: Record<string, string | number> = {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(Math.floor(now / 1000) + 3600),
    "x-ratelimit-used": "1",
    "x-ratelimit-resource": "core",
    "x-github-request-id": requestId,
    "x-github-media-type": "github.v3; format=json",
    ...reply.headers,
  };
  let payload: string | undefined;
  if (reply.status === 204) {
    payload = undefined;
  } else if (reply.text !== undefined) {
    headers["content-type"] = "text/plain; charset=utf-8";
    payload = reply.text;
  } else if (reply.json !== undefined) {
    headers["content-type"] = "application/json; charset=utf-8";
    payload = JSON.stringify(reply.json);
  }
  if (payload !== undefined) headers["content-length"] = Buffer.byteLength(payload);
  res.writeHead(reply.status, headers);
  res.end(payload);
}
