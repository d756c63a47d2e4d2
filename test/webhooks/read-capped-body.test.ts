/**
 * A refused body's connection, on a real server over loopback: the 413 must
 * reach a client that goes on sending and reads its answer late (a busy
 * client, or one that reads only once it has stopped writing). A connection
 * closed with bytes unread is reset, and a reset drops what the client had
 * not read yet: the answer.
 */
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DISCARDED_AT_MOST, readCappedBody, TOO_LARGE } from "../../src/webhooks/read-capped-body.js";

const MAX = 1024;
let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(): Promise<number> {
  server = createServer((req, res) => {
    void readCappedBody(req, MAX).then((body) => {
      if (body === TOO_LARGE) res.writeHead(413, { "content-length": "0" }).end();
      else res.writeHead(200, { "content-length": "0" }).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server!.address() as AddressInfo).port;
}

/**
 * A chunked body sent without reading the socket, until `until` bytes are
 * sent or the server stops taking them (no `drain` for 300 ms); then the
 * socket is read to its end. Resolves with what came back and what was sent.
 */
function sendThenRead(port: number, until: number): Promise<{ answer: string; sent: number }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    socket.pause();
    let answer = "";
    let sent = 0;
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => (answer += d));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve({ answer, sent }));
    socket.write(`POST /body HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\n`);
    const piece = Buffer.alloc(64 * 1024, "x");
    const framed = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]);
    const stopSending = () => socket.resume();
    const write = () => {
      while (sent < until && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(framed)) {
          const stalled = setTimeout(stopSending, 300);
          socket.once("drain", () => {
            clearTimeout(stalled);
            write();
          });
          return;
        }
      }
      stopSending();
    };
    write();
  });
}

describe("readCappedBody: a refused body's connection", () => {
  it("answers 413 to a client that sends past what is discarded before it reads: the answer is not lost to a reset", async () => {
    const port = await listen();
    const { answer, sent } = await sendThenRead(port, DISCARDED_AT_MOST + 16 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // The server stopped taking the body: what was sent is bounded by what it discarded and the sockets' buffers.
    expect(sent).toBeLessThan(DISCARDED_AT_MOST + 16 * 1024 * 1024);
  }, 20_000);

  it("answers a body under the cap", async () => {
    const port = await listen();
    const res = await fetch(`http://127.0.0.1:${port}/body`, { method: "POST", body: "x".repeat(MAX) });
    expect(res.status).toBe(200);
  });
});
