/**
 * The API's GET of an issue with the caller's token (github-get.ts), against
 * real sockets on 127.0.0.1: JSON and headers back, a redirect not followed,
 * one deadline for the whole answer, a cap on its size, and a kept-alive
 * socket that the server dropped retried once on a fresh one.
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { githubGet } from "../../src/github/github-get.js";

const servers: Array<Server | NetServer> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const s of servers.splice(0)) {
    (s as Server).closeAllConnections?.();
    await new Promise((done) => s.close(() => done(undefined)));
  }
});

async function listen<S extends Server | NetServer>(server: S): Promise<string> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const headers = { authorization: "bearer t", accept: "application/vnd.github+json" };

describe("githubGet", () => {
  it("answers the status, the headers and the parsed JSON; a body that is not JSON is null", async () => {
    const seen: Array<string | undefined> = [];
    const url = await listen(
      createHttpServer((req, res) => {
        seen.push(req.headers.authorization);
        if (req.url === "/text") res.writeHead(502, { "content-type": "text/html" }).end("<h1>bad gateway</h1>");
        else res.writeHead(200, { "content-type": "application/json", "x-ratelimit-remaining": "41" }).end('{"state":"open","labels":[]}');
      }),
    );
    const ok = await githubGet(`${url}/repos/o/r/issues/1`, { headers, timeoutMs: 5_000 });
    expect(ok).toMatchObject({ status: 200, body: { state: "open", labels: [] } });
    expect(ok.headers["x-ratelimit-remaining"]).toBe("41");
    expect(await githubGet(`${url}/text`, { headers, timeoutMs: 5_000 })).toMatchObject({ status: 502, body: null });
    expect(seen).toEqual(["bearer t", "bearer t"]);
  });

  it("does not follow a redirect: a transferred issue's 301 is the answer", async () => {
    let asked = 0;
    const url = await listen(
      createHttpServer((req, res) => {
        asked++;
        res.writeHead(301, { location: "/repos/o/elsewhere/issues/9", "content-type": "application/json" }).end('{"message":"Moved Permanently"}');
      }),
    );
    expect(await githubGet(`${url}/repos/o/r/issues/1`, { headers, timeoutMs: 5_000 })).toMatchObject({ status: 301 });
    expect(asked).toBe(1);
  });

  it("fails at the deadline when the answer does not come, headers or body", async () => {
    const url = await listen(
      createHttpServer((req, res) => {
        if (req.url === "/slow-body") {
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"state":');
        }
        // Nothing more: GitHub hangs.
      }),
    );
    const t0 = Date.now();
    await expect(githubGet(`${url}/hang`, { headers, timeoutMs: 300 })).rejects.toThrow(/did not answer within 300 ms/);
    await expect(githubGet(`${url}/slow-body`, { headers, timeoutMs: 300 })).rejects.toThrow(/did not answer within 300 ms/);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("cuts off an answer over maxBytes as a failure", async () => {
    const url = await listen(createHttpServer((_req, res) => res.writeHead(200).end(JSON.stringify({ body: "x".repeat(10_000) }))));
    await expect(githubGet(`${url}/big`, { headers, timeoutMs: 5_000, maxBytes: 1_000 })).rejects.toThrow(/over 1000 bytes/);
    expect(await githubGet(`${url}/big`, { headers, timeoutMs: 5_000, maxBytes: 20_000 })).toMatchObject({ status: 200 });
  });

  it("retries once on a fresh socket when a kept-alive one is dropped as the request goes out", async () => {
    const connections: Socket[] = [];
    const answer = '{"state":"closed"}';
    const reply = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\nconnection: keep-alive\r\n\r\n${answer}`;
    const url = await listen(
      createNetServer((socket) => {
        connections.push(socket);
        sockets.push(socket);
        let requests = 0;
        socket.on("data", () => {
          requests++;
          // The first connection answers once, then drops the next request on it.
          if (connections.length === 1 && requests === 2) socket.resetAndDestroy();
          else socket.write(reply);
        });
      }),
    );
    expect(await githubGet(`${url}/repos/o/r/issues/1`, { headers, timeoutMs: 5_000 })).toMatchObject({ status: 200 });
    expect(await githubGet(`${url}/repos/o/r/issues/1`, { headers, timeoutMs: 5_000 })).toMatchObject({ status: 200, body: { state: "closed" } });
    expect(connections).toHaveLength(2);
  });

  it("does not retry a failure on a fresh socket: the refusal is the answer", async () => {
    const url = await listen(createHttpServer(() => undefined));
    const port = new URL(url).port;
    await new Promise((done) => servers.pop()!.close(() => done(undefined)));
    await expect(githubGet(`http://127.0.0.1:${port}/x`, { headers, timeoutMs: 5_000 })).rejects.toThrow(/ECONNREFUSED/);
  });
});
