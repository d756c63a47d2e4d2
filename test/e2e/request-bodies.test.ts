/**
 * Bodies nobody has vouched for, sent to the real server over HTTP. Webhook
 * deliveries: a body over the cap is refused 413 before it is held in memory
 * (by its Content-Length, or as it streams when chunked), one under the cap
 * with a bad signature is refused 400, and nothing of either is ever logged;
 * at `/api/github/webhooks` and at `/` alike (the app's webhook route). The
 * API's JSON bodies have a cap of their own, kept the same way.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/api/requests.js";
import { WEBHOOK_BODY_LIMIT } from "../../src/webhooks/webhook-body-limit.js";
import { logLines, type ServerProcess, waitFor } from "../support/server-process.js";
import { withLiveApp } from "./live-app.js";

const MB = 1_000_000;
const MiB = 1024 * 1024;
const ROUTES = ["/api/github/webhooks", "/"] as const;

/** The server's resident memory, from the kernel. */
function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")![1]) * 1024;
}

interface Sent {
  status: number;
  /** Body bytes the server took before it closed the connection. */
  sent: number;
}

/**
 * POSTs `size` bytes over a plain socket, streamed with backpressure, so the
 * server reads only what it asks for; resolves with the status as soon as
 * the answer's head is in, as a client that reads while it sends does (fetch
 * would report the server closing mid-body as a network error, hiding the
 * 413 it got). Every 64 KiB chunk starts with `marker`, so any piece of the
 * body that reached a log would show it. `body: false` sends the headers
 * alone; `stubborn` goes on sending after the answer and the server's end of
 * the connection, until the server closes it.
 */
function post(
  server: ServerProcess,
  path: string,
  o: { size: number; marker: string; chunked?: boolean; body?: boolean; stubborn?: boolean; headers?: string[] },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: o.stubborn === true });
    // A server that waits for a body it will never get would never answer.
    socket.setTimeout(30_000, () => socket.destroy());
    const head = [
      `POST ${path} HTTP/1.1`,
      `host: 127.0.0.1:${server.port}`,
      "content-type: application/json",
      ...(o.headers ?? [
        "x-github-event: issue_comment",
        `x-github-delivery: unsigned-${Math.random().toString(36).slice(2)}`,
        `x-hub-signature-256: sha256=${"0".repeat(64)}`,
      ]),
      o.chunked ? "transfer-encoding: chunked" : `content-length: ${o.size}`,
      "",
      "",
    ].join("\r\n");
    let answer = "";
    let sent = 0;
    let over = false;
    const status = () => /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n/.exec(answer)?.[1];
    const done = () => {
      if (over) return;
      over = true;
      const code = status();
      if (code) resolve({ status: Number(code), sent });
      else reject(new Error(`${path} ${o.chunked ? "chunked" : "sized"}${o.stubborn ? " stubborn" : ""}: no HTTP answer after ${sent} body bytes: ${JSON.stringify(answer.slice(0, 200))}`));
      socket.destroy();
    };
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      answer += d;
      if (!o.stubborn && status()) done();
    });
    socket.on("error", () => undefined);
    socket.on("close", done);
    socket.write(head);
    if (o.body === false) return;
    const piece = Buffer.alloc(64 * 1024, "x");
    piece.write(`{"m":"${o.marker}","p":"`);
    const write = () => {
      while (!over && sent < o.size) {
        const chunk = piece.subarray(0, Math.min(piece.length, o.size - sent));
        sent += chunk.length;
        const framed = o.chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk;
        if (!socket.write(framed)) return void socket.once("drain", write);
      }
      if (!over && o.chunked) socket.write("0\r\n\r\n");
    };
    write();
  });
}

/** Waits for Probot's HTTP log to have a line for each of the `count` POSTs: everything those requests logged is out by then. */
const logged = (server: ServerProcess, count: number) =>
  waitFor(`${count} POSTs logged`, () => logLines(server, 0).filter((l) => /^POST /.test(String(l.msg))).length >= count);

describe.concurrent("Webhook bodies before their signature is checked", () => {
  it("A 30 MB unsigned body: 413, memory bounded, nothing logged of its content.", () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      const start = rssBytes(server.pid);
      for (const path of ROUTES) {
        const marker = `BIGBODY${path.length}`;
        // Streamed with its Content-Length: refused on the headers, the body never read.
        expect((await post(server, path, { size: 30 * MB, marker })).status).toBe(413);
        // Headers alone with a Content-Length over the cap: answered without waiting for a byte of the body.
        expect((await post(server, path, { size: 30 * MB, marker, body: false })).status).toBe(413);
      }
      // Four 30 MB bodies came and went, and none was held.
      const declared = rssBytes(server.pid);
      expect(declared - start).toBeLessThan(16 * MiB);

      for (const path of ROUTES) {
        // Chunked, so nothing says its size beforehand: refused once the count passes the cap.
        expect((await post(server, path, { size: 30 * MB, marker: `BIGBODY${path.length}`, chunked: true })).status).toBe(413);
      }
      // A chunked body with no end, from a client that will not stop: the server takes it a little past the cap, then closes the connection.
      const endless = await post(server, "/", { size: 4096 * MB, marker: "ENDLESS", chunked: true, stubborn: true });
      expect(endless.status).toBe(413);
      expect(endless.sent).toBeLessThan(WEBHOOK_BODY_LIMIT + 64 * MiB);
      // Those were read as far as the cap, no further: what the process grew by
      // is bounded by the cap (three times, for what the garbage collector has
      // not freed yet), not by the 4 GB sent.
      expect(rssBytes(server.pid) - declared).toBeLessThan(4 * WEBHOOK_BODY_LIMIT);

      // Still serving; nothing of the bodies anywhere in its output.
      expect((await server.health()).status).toBe(200);
      await logged(server, 2 * ROUTES.length + ROUTES.length + 1);
      for (const marker of ["BIGBODY21", "BIGBODY1", "ENDLESS"]) {
        expect(server.stdout()).not.toContain(marker);
        expect(server.stderr()).not.toContain(marker);
      }
      expect(live.fake.requests).toEqual([]);
    }), 120_000);

  it("a body just under the cap with a wrong signature: refused 400, its payload not logged", () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      for (const path of ROUTES) {
        const marker = `NEARCAP${path.length}`;
        const size = WEBHOOK_BODY_LIMIT - 1024;
        const refused = await post(server, path, { size, marker });
        expect(refused.status).toBe(400);
        expect(refused.sent).toBe(size);
      }
      await logged(server, ROUTES.length);
      for (const path of ROUTES) {
        expect(server.stdout()).not.toContain(`NEARCAP${path.length}`);
        expect(server.stderr()).not.toContain(`NEARCAP${path.length}`);
      }
      // One warning per refusal, with the delivery id and event it claimed; not a byte of the body.
      const warnings = await waitFor("a warning per refusal", () => {
        const lines = logLines(server, 40);
        return lines.length >= 2 && lines;
      });
      expect(warnings.map((w) => [w.level, w.webhook, w.msg])).toEqual(
        ROUTES.map(() => [40, "issue_comment", expect.stringMatching(/^refused a delivery whose signature does not match WEBHOOK_SECRET/)]),
      );
      expect(live.fake.requests).toEqual([]);
    }), 120_000);

  it("the API's JSON bodies: over the cap by Content-Length refused 413 unread, a chunked one read no further than the cap", () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      const path = "/api/v1/repos/Codertocat/Hello-World/issues/1/lease";
      // No token either: the size is looked at first, and nothing is asked of GitHub.
      const headers = ["authorization: Bearer not-a-token"];
      expect((await post(server, path, { size: 30 * MB, marker: "APIBODY", body: false, headers })).status).toBe(413);
      const endless = await post(server, path, { size: 4096 * MB, marker: "APIBODY", chunked: true, stubborn: true, headers });
      expect(endless.status).toBe(413);
      // Loopback's socket buffers hold MBs whatever the server does; the old reader took all 4 GB.
      expect(endless.sent).toBeLessThan(MAX_BODY_BYTES + 64 * MiB);
      await logged(server, 2);
      expect(server.stdout()).not.toContain("APIBODY");
      expect(live.fake.requests).toEqual([]);
    }), 120_000);
});
