/**
 * A request's body read into memory up to a cap, for every route that reads
 * one (webhook deliveries, the API). Without a cap, anyone who can reach the
 * port makes the process hold whatever they send, before anything (a
 * signature, a token) has been checked.
 */
import type { IncomingMessage } from "node:http";

/** Over the cap: the caller answers 413. */
export const TOO_LARGE = "too_large" as const;

/**
 * How long, and how much more of, a refused body is read (and dropped)
 * before the connection is closed. Closed at once, with bytes unread, the
 * connection is reset, and a client still sending loses the 413 it was sent
 * (nginx's lingering close, for the same reason): a client's first burst
 * alone can be the ~10 MB that the two ends' socket buffers hold on loopback.
 * A body with no end is cut off here.
 */
export const LINGER_MS = 2_000;
export const DISCARDED_AT_MOST = 32 * 1024 * 1024;

/** Whether the request says, before any of it is read, that its body is over `max` bytes. */
export function declaredOver(req: IncomingMessage, max: number): boolean {
  const declared = req.headers["content-length"];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > max;
}

/**
 * What still comes of a refused body is dropped as it comes, for at most
 * LINGER_MS and DISCARDED_AT_MOST bytes; then the connection is closed. A
 * client that stops once answered (keep-alive) can go on using it. Past
 * DISCARDED_AT_MOST nothing more is read, so a client still sending stalls,
 * and the connection is closed when LINGER_MS is up: closed at once, it
 * was reset while the client, busy sending, had not read its 413 yet, and
 * the reset dropped it.
 */
function discardRest(req: IncomingMessage): void {
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once("close", () => clearTimeout(timer));
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARDED_AT_MOST) req.pause();
  });
  req.on("end", () => clearTimeout(timer));
  req.resume();
}

/**
 * The body, or TOO_LARGE: at once when its Content-Length is over `max`
 * (none of it is kept), else as soon as the bytes read pass `max` (chunked
 * bodies say nothing beforehand), what was read being dropped then.
 */
export function readCappedBody(req: IncomingMessage, max: number): Promise<Buffer | typeof TOO_LARGE> {
  if (declaredOver(req, max)) {
    discardRest(req);
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      chunks = [];
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      discardRest(req);
      resolve(TOO_LARGE);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
  });
}
