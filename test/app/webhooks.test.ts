/**
 * Outgoing webhooks through the whole app (`probot.receive`, strict nock for
 * GitHub, real receivers on 127.0.0.1):
 *
 * - a config naming `127.0.0.1` or `169.254.169.254` gets one `invalid`
 *   reply naming `webhooks`, and nothing changes;
 * - the manual's receiver, run as docs/operators/outgoing-webhooks.md prints it, takes what the app
 *   sends (signed as Standard Webhooks with the installation's key) once,
 *   and refuses it replayed under a new id, signed for another
 *   installation, tampered, or re-sent past the 5 minutes' tolerance (or
 *   from further ahead); a Slack target gets `{"text"}`;
 * - a receiver that does not answer holds up neither the issue's next reply
 *   nor anything else: the reply reaches GitHub while the delivery hangs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/reply-marker.js";
import { installationKey, keyText } from "../../src/events/sign.js";
import { appSettings } from "../../src/settings/app-settings.js";
import { deliveryId } from "../../src/events/webhook-body.js";
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";
import { GitHubMock, type Harness, startApp, strictNock } from "../support/app-harness.js";
import { alice, commentPayload, INSTALLATION_ID, REPO } from "../support/payloads.js";
import { waitFor } from "../support/server-process.js";

const SECRET = "a secret the operator set, long enough to derive keys from";
/** The operator's EVENTS_WEBHOOK_ALLOW_PRIVATE=1: the receivers here are on 127.0.0.1. */
const ALLOWING_PRIVATE = appSettings({ EVENTS_WEBHOOK_ALLOW_PRIVATE: "1" });
const ROOT = join(import.meta.dirname, "../..");
const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

let h: Harness | undefined;
let gh: GitHubMock;
let mock: ReturnType<typeof strictNock>;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(() => {
  mock = strictNock();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await h?.close();
  h = undefined;
  mock.verify();
});

async function app(opts: Parameters<typeof startApp>[0] = {}): Promise<Harness> {
  gh = new GitHubMock();
  h = await startApp(opts);
  return h;
}

describe("a config naming a refused target", () => {
  it.each([
    ["127.0.0.1", "https://127.0.0.1:8443/hook", "`127.0.0.1` is a loopback address"],
    ["169.254.169.254", "http://169.254.169.254/latest/meta-data/", "`169.254.169.254` is a cloud metadata address; the app never sends webhooks there."],
  ])("(%s) gets one `invalid` reply naming `webhooks`, and the claim is not made", async (_, url, text) => {
    await app({ webhooks: { secret: SECRET } });
    gh.config(`webhooks:\n  - url: ${url}\n`, "unread");
    await h!.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.comment(1);
    await h!.drain();
    expect(gh.routes()).toEqual(["GET /contents/.github/issue-leases.yml", "POST /issues/1/comments"]);
    const reply = gh.lastComment();
    expect(reply).toContain("That command was not understood, so nothing changed.");
    expect(reply).toContain("`webhooks.0.url`:");
    expect(reply).toContain(text);
    expect(parseMarker(reply)).toMatchObject({ op: "claim", outcome: "invalid", holder: null });
    expect(await h!.ledger.current(key(1), h!.now())).toBeNull();
  });
});

/** The manual's receiver: the first `js` block of its "Outgoing webhooks" page, as printed. */
function manualReceiver(): string {
  const page = readFileSync(join(ROOT, "docs/operators/outgoing-webhooks.md"), "utf8");
  const block = /```js\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error("docs/operators/outgoing-webhooks.md has no ```js block");
  return block[1]!;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** POSTs `body` to the receiver with the given headers; answers the status. */
function post(port: number, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A receiver on 127.0.0.1 whose answers the test holds: each request is recorded, and answered when `answer` says. */
async function heldReceiver(): Promise<{ url: string; got: Array<{ headers: IncomingMessage["headers"]; body: string; res: ServerResponse }>; server: Server }> {
  const got: Array<{ headers: IncomingMessage["headers"]; body: string; res: ServerResponse }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => got.push({ headers: req.headers, body, res }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack`, got, server };
}

describe("the manual's receiver", () => {
  it("takes what the app sends once, and refuses it replayed: under a new id, for another installation, tampered, or past 5 minutes either way", async () => {
    // The key the operator gives the repository's maintainers (`issue-leases webhook-key`).
    const key = keyText(installationKey(SECRET, INSTALLATION_ID));
    // The manual's code, written to a file and run by Node as a reader would run it.
    const dir = mkdtempSync(join(tmpdir(), "issue-leases-receiver-"));
    writeFileSync(join(dir, "receiver.mjs"), manualReceiver());
    const port = await freePort();
    const lines: string[] = [];
    const child: ChildProcess = spawn(process.execPath, ["receiver.mjs"], { cwd: dir, env: { ...process.env, ISSUE_LEASES_WEBHOOK_KEY: key, PORT: String(port) } });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      for (let i = out.indexOf("\n"); i >= 0; i = out.indexOf("\n")) {
        lines.push(out.slice(0, i));
        out = out.slice(i + 1);
      }
    });
    cleanups.push(() => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    });
    nock.enableNetConnect("127.0.0.1");
    await waitFor("the receiver listening", () => post(port, "", {}).then((s) => s === 401, () => false), 20_000, 50);

    const slack = await heldReceiver();
    // The receiver checks the time against its own clock: the app's is today's.
    await app({ settings: ALLOWING_PRIVATE, webhooks: { secret: SECRET }, start: Date.now() });
    const hook = `http://127.0.0.1:${port}/hooks/leases`;
    gh.config(`webhooks:\n  - url: ${hook}\n  - url: ${slack.url}\n    format: slack\n    events: [lease.acquired]\n`);
    await h!.receive("issue_comment", commentPayload({ body: "/claim 2h", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h!.drain();
    await h!.runtime.webhooks!.dispatchAll();
    const draining = h!.drain();
    await waitFor("the Slack target's delivery", () => slack.got.length === 1, 20_000, 20);
    slack.got[0]!.res.writeHead(200).end("ok");
    await draining;
    await waitFor("the receiver's line", () => lines.length === 1, 20_000, 20);

    const printed = JSON.parse(lines[0]!) as { id: string; type: string; event: LeaseEvent };
    expect(printed.type).toBe("lease.acquired");
    expect(printed.event).toMatchObject({
      type: "lease.acquired",
      repo: `${REPO.owner}/${REPO.name}`,
      issue: 1,
      holder: { login: alice.login, id: alice.id },
      token: 1,
      expires_at: new Date(h!.now() + 2 * 3_600_000).toISOString(),
      actor: { login: alice.login, id: alice.id },
      cause: "command",
    });
    expect(printed.id).toBe(deliveryId(printed.event.id, hook, "json"));
    expect((await h!.ledger.outboxStats()).pending).toBe(0);
    const s = slack.got[0]!;
    expect(JSON.parse(s.body)).toEqual({ text: expect.stringMatching(new RegExp(`^alice claimed ${REPO.owner}/${REPO.name}#1 \\(lease #1, until [0-9: -]+ UTC\\)$`)) });
    expect(new Webhook(key).verify(s.body, s.headers as Record<string, string>)).toEqual(JSON.parse(s.body));

    // What a receiver of the installation could send, signed as the standardwebhooks package signs.
    const body = JSON.stringify(printed.event);
    const signed = (id: string, at: Date, k = key, text = body) => ({
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(k).sign(id, at, text),
    });
    const sent = signed(printed.id, new Date());
    // The same delivery again, as a retry would come: answered, not handled twice.
    expect(await post(port, body, sent)).toBe(204);
    // Replayed under a new id (the id is signed): refused.
    expect(await post(port, body, { ...sent, "webhook-id": "a-new-id" })).toBe(401);
    // Re-sent past the tolerance, or from further ahead than it, each well signed under a new id: refused.
    expect(await post(port, body, signed("from-6-minutes-ago", new Date(Date.now() - 6 * 60_000)))).toBe(401);
    expect(await post(port, body, signed("from-6-minutes-ahead", new Date(Date.now() + 6 * 60_000)))).toBe(401);
    // Signed with another installation's key, or tampered: refused.
    expect(await post(port, body, signed("other-installation", new Date(), keyText(installationKey(SECRET, INSTALLATION_ID + 1))))).toBe(401);
    expect(await post(port, `${body} `, signed("tampered", new Date()))).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(lines).toHaveLength(1);

    // A fresh delivery, within the tolerance and never seen: taken.
    const fresh = { ...printed.event, id: "999999" };
    expect(await post(port, JSON.stringify(fresh), signed("a-fresh-one", new Date(Date.now() - 60_000), key, JSON.stringify(fresh)))).toBe(204);
    await waitFor("the fresh one's line", () => lines.length === 2, 20_000, 20);
    expect(JSON.parse(lines[1]!)).toMatchObject({ id: "a-fresh-one", type: "lease.acquired", event: { id: "999999" } });
  });
});

describe("a receiver that does not answer", () => {
  it("holds up neither the issue's next reply nor the outbox: the reply reaches GitHub while the delivery hangs", async () => {
    const dead = await heldReceiver();
    nock.enableNetConnect("127.0.0.1");
    // One effect in flight at a time: a delivery counted among them would stop everything behind it.
    await app({ settings: ALLOWING_PRIVATE, webhooks: { secret: SECRET, timeoutMs: 60_000 }, drainer: { batchSize: 1, pollMs: 20 } });
    const runtime = h!.runtime;
    runtime.drainer.start();
    runtime.webhooks!.start();
    cleanups.push(async () => {
      for (const g of dead.got) if (!g.res.headersSent) g.res.writeHead(204).end();
      await runtime.webhooks!.stop();
      await runtime.drainer.stop();
    });

    gh.config(`webhooks:\n  - url: ${dead.url}\n`);
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h!.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    await waitFor("the claim's delivery, hanging", () => dead.got.length === 1, 20_000, 20);
    await waitFor("the claim's reply", () => gh.comments().length === 1, 20_000, 20);

    // The same issue's next command, while the claim's delivery is still unanswered.
    gh.comment(1);
    await h!.receive("issue_comment", commentPayload({ body: "/renew", author: alice }));
    await waitFor("the renewal's reply", () => gh.comments().length === 2, 20_000, 20);
    expect(parseMarker(gh.lastComment())).toMatchObject({ op: "renew", outcome: "renewed" });
    expect(dead.got).toHaveLength(1);
    expect(dead.got[0]!.res.headersSent).toBe(false);
    expect(JSON.parse(dead.got[0]!.body)).toMatchObject({ type: "lease.acquired" });

    // Answered at last: the renewal's delivery follows, in order.
    dead.got[0]!.res.writeHead(204).end();
    await waitFor("the renewal's delivery", () => dead.got.length === 2, 20_000, 20);
    expect(JSON.parse(dead.got[1]!.body)).toMatchObject({ type: "lease.renewed" });
  });
});
