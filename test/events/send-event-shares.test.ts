/**
 * The sender's slots and holds, against real receivers on 127.0.0.1 whose
 * answers the test holds back: no installation has more than its share of
 * the slots in flight, nor one receiver more than its share of its
 * installation's, so another's delivery goes at once; a receiver that did
 * not answer 3 deliveries in a row is held back (its next ones fail at once,
 * unsent, saying until when), longer each time, and let go by an answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type DeliveryError, eventSender, type SenderOptions, type WebhookDelivery } from "../../src/events/send-event.js";
import { deliveryId } from "../../src/events/webhook-body.js";
import { leaseEvent } from "../support/lease-events.js";

interface Receiver {
  url: string;
  /** Requests received and not answered yet, oldest first. */
  held: ServerResponse[];
  got: string[];
  answer: ((req: IncomingMessage, res: ServerResponse) => void) | null;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A receiver that holds every request unanswered, unless told how to answer. */
async function receiver(): Promise<Receiver> {
  const r: Receiver = { url: "", held: [], got: [], answer: null };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      r.got.push(req.url ?? "");
      if (r.answer) r.answer(req, res);
      else r.held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

const delivery = (url: string, installation: number): WebhookDelivery => {
  const event = leaseEvent();
  return { url, format: "json", delivery: deliveryId(event.id, url, "json"), event, installation };
};
const sender = (o: Partial<SenderOptions> = {}) => eventSender({ secret: "It's a Secret to Everybody", policy: { allowPrivate: true }, ...o });
const signal = () => new AbortController().signal;
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as DeliveryError);

async function waitUntil(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the sender's slots", () => {
  it("give no installation more than its share: another installation's delivery goes while the first's wait", async () => {
    const slow = await receiver();
    const fast = await receiver();
    const send = sender({ shares: { total: 4, perInstallation: 2, perReceiver: 2 } });
    const first = [1, 2, 3].map((n) => send(delivery(`${slow.url}/${n}`, 1), signal()));
    await waitUntil(() => slow.got.length === 2);
    fast.answer = (_req, res) => res.writeHead(204).end();
    // Behind installation 1's third in the line, and sent before it.
    await send(delivery(`${fast.url}/other`, 2), signal());
    expect(slow.got).toEqual(["/1", "/2"]);
    slow.held.shift()!.writeHead(204).end();
    await waitUntil(() => slow.got.length === 3);
    expect(slow.got[2]).toBe("/3");
    for (const res of slow.held.splice(0)) res.writeHead(204).end();
    await Promise.all(first);
  });

  it("give no receiver more than its share of its installation's: the installation's other receiver goes", async () => {
    const dead = await receiver();
    const alive = await receiver();
    alive.answer = (_req, res) => res.writeHead(204).end();
    const send = sender({ shares: { total: 16, perInstallation: 3, perReceiver: 2 } });
    const stuck = [1, 2, 3].map((n) => send(delivery(`${dead.url}/${n}`, 1), signal()));
    await waitUntil(() => dead.got.length === 2);
    await send(delivery(`${alive.url}/x`, 1), signal());
    expect(dead.got).toEqual(["/1", "/2"]);
    for (const res of dead.held.splice(0)) res.writeHead(204).end();
    await waitUntil(() => dead.got.length === 3);
    dead.held.shift()!.writeHead(204).end();
    await Promise.all(stuck);
  });

  it("count one host as a receiver per installation: one installation's full share to it holds not another's", async () => {
    const host = await receiver();
    const send = sender({ shares: { total: 16, perInstallation: 4, perReceiver: 1 } });
    const one = send(delivery(`${host.url}/one`, 1), signal());
    await waitUntil(() => host.got.length === 1);
    const two = send(delivery(`${host.url}/two`, 2), signal());
    await waitUntil(() => host.got.length === 2);
    expect(host.got).toEqual(["/one", "/two"]);
    for (const res of host.held.splice(0)) res.writeHead(204).end();
    await Promise.all([one, two]);
  });
});

describe("a receiver that does not answer", () => {
  it("is held back after 3 misses in a row: the next fails at once, unsent, until the hold ends; held again at once by one more miss, for twice as long", async () => {
    const dead = await receiver();
    let now = Date.parse("2026-12-01T12:00:00Z");
    const outcomes: string[] = [];
    const send = sender({ timeoutMs: 100, clock: () => now, onResult: (o) => outcomes.push(o) });
    for (let i = 0; i < 3; i++) expect(await failure(send(delivery(`${dead.url}/${i}`, 1), signal()))).toMatchObject({ status: null, heldBack: false });
    expect(dead.got).toHaveLength(3);

    const held = await failure(send(delivery(`${dead.url}/3`, 1), signal()));
    expect(held).toMatchObject({ status: null, heldBack: true, refused: false, retryAfterMs: 10_000 });
    expect(held?.message).toContain("held back until 2026-12-01T12:00:10.000Z");
    expect(dead.got).toHaveLength(3);
    // Another installation's deliveries to the same host are not held.
    expect(await failure(send(delivery(`${dead.url}/other`, 2), signal()))).toMatchObject({ heldBack: false });
    expect(dead.got).toHaveLength(4);

    now += 10_000;
    expect(await failure(send(delivery(`${dead.url}/4`, 1), signal()))).toMatchObject({ heldBack: false });
    expect(dead.got).toHaveLength(5);
    expect(await failure(send(delivery(`${dead.url}/5`, 1), signal()))).toMatchObject({ heldBack: true, retryAfterMs: 20_000 });
    expect(dead.got).toHaveLength(5);
    expect(outcomes).toEqual(["no_answer", "no_answer", "no_answer", "held_back", "no_answer", "no_answer", "held_back"]);
  });

  it("is let go by any answer: a 5xx comes at once, so it holds no slot", async () => {
    const flaky = await receiver();
    const now = Date.parse("2026-12-01T12:00:00Z");
    const send = sender({ timeoutMs: 100, clock: () => now });
    for (let i = 0; i < 2; i++) await failure(send(delivery(`${flaky.url}/${i}`, 1), signal()));
    flaky.answer = (_req, res) => res.writeHead(503).end();
    expect(await failure(send(delivery(`${flaky.url}/2`, 1), signal()))).toMatchObject({ status: 503, heldBack: false });
    flaky.answer = null;
    for (let i = 3; i < 5; i++) expect(await failure(send(delivery(`${flaky.url}/${i}`, 1), signal()))).toMatchObject({ heldBack: false });
    expect(flaky.got).toHaveLength(5);
  });
});
