/**
 * One installation's dead receivers do not stall another's deliveries
 * (issue 37), through the app: lease changes in the ledger, the dispatcher
 * reading each repository's `webhooks:` from GitHub (strict nock) and
 * queuing the deliveries, the drainer's loop taking them and the sender
 * POSTing them to receivers on 127.0.0.1. Installation 1's 20 deliveries go
 * to a receiver that accepts connections and never answers; installation
 * 2's, queued after them, reaches its receiver, which answers at once,
 * within 1 s of the drainer starting. The sender's 10 s timeout is left as
 * it is: when one installation could take every slot, it arrived after it.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appSettings } from "../../src/settings/app-settings.js";
import { configFile, type Harness, startApp, strictNock } from "../support/app-harness.js";
import { alice } from "../support/payloads.js";
import { waitFor } from "../support/server-process.js";

const SECRET = "a secret the operator set, long enough to derive keys from";
const HOUR = 3_600_000;

let h: Harness | undefined;
let mock: ReturnType<typeof strictNock>;
const servers: Server[] = [];
const hung: ServerResponse[] = [];
/** Set once the test is over: the dead receiver then answers, so the drainer stops at once. */
let over = false;

beforeEach(() => {
  mock = strictNock();
  nock.enableNetConnect("127.0.0.1");
  over = false;
});
afterEach(async () => {
  over = true;
  for (const res of hung.splice(0)) if (!res.headersSent) res.writeHead(204).end();
  await h?.runtime.webhooks?.stop();
  await h?.runtime.drainer.stop();
  await h?.close();
  h = undefined;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  mock.verify();
});

/** A receiver on 127.0.0.1: `answer` false, it accepts each request and never answers it. Records when each arrived. */
async function receiver(answer: boolean): Promise<{ url: string; got: Array<{ path: string; at: number }> }> {
  const got: Array<{ path: string; at: number }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      got.push({ path: req.url ?? "", at: performance.now() });
      if (answer || over) res.writeHead(204).end();
      else hung.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

/** A repository of `installation` whose config names `urls`, and a lease taken in it (one event). */
async function leaseIn(repo: { repoId: number; repo: string; installation: number }, urls: string[]): Promise<void> {
  const [owner, name] = repo.repo.split("/") as [string, string];
  configFile(`webhooks:\n${urls.map((u) => `  - url: ${u}\n`).join("")}`, owner, name);
  await h!.ledger.rememberRepo(repo, h!.now());
  await h!.ledger.acquire({ repoId: repo.repoId, repo: repo.repo, issue: 1 }, alice, HOUR, h!.now());
}

describe("an installation whose receiver never answers", () => {
  it("holds up no other installation's delivery: installation 2's arrives within 1 s while installation 1's 20 hang", async () => {
    const dead = await receiver(false);
    const alive = await receiver(true);
    // The operator's EVENTS_WEBHOOK_ALLOW_PRIVATE=1: the receivers are on 127.0.0.1.
    h = await startApp({ settings: appSettings({ EVENTS_WEBHOOK_ALLOW_PRIVATE: "1" }), webhooks: { secret: SECRET }, drainer: { pollMs: 20 } });
    const runtime = h.runtime;

    // Installation 1: 4 repositories of 5 targets each, all on the receiver that never answers; then installation 2's one.
    for (let r = 1; r <= 4; r++) {
      await leaseIn({ repoId: 9000 + r, repo: `slow-org/repo-${r}`, installation: 1 }, [1, 2, 3, 4, 5].map((t) => `${dead.url}/repo-${r}/target-${t}`));
    }
    await leaseIn({ repoId: 9100, repo: "fast-org/app", installation: 2 }, [`${alive.url}/hooks`]);
    await runtime.webhooks!.dispatchAll();
    expect((await h.ledger.outboxStats()).pending).toBe(21);

    const started = performance.now();
    runtime.drainer.start();
    await waitFor("installation 2's delivery", () => alive.got.length === 1, 15_000, 5);
    const tookMs = alive.got[0]!.at - started;
    if (process.env.LOG_LEVEL) console.log(`installation 2's delivery arrived after ${Math.round(tookMs)} ms`);
    // Installation 1's were sent first, and still hang.
    expect(dead.got.length).toBeGreaterThanOrEqual(1);
    expect(dead.got[0]!.at).toBeLessThanOrEqual(alive.got[0]!.at);
    expect(hung.every((res) => !res.headersSent)).toBe(true);
    expect(alive.got[0]!.path).toBe("/hooks");
    // The issue's bound, measured generously: from the drainer's start, with the ledger's takes and the sends in it.
    expect(tookMs).toBeLessThan(1000);
  });
});
