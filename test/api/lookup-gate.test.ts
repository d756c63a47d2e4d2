/**
 * The gate of identity look-ups of tokens not known yet (lookup-gate.ts),
 * with the clock injected and each look-up's end told by hand: only the
 * tokens GitHub refused use up an address's limit, look-ups in flight hold
 * what they would use, and a bounded number run at once, per address and
 * overall, the rest waiting rather than being turned away.
 */
import { describe, expect, it } from "vitest";
import { LookupGate, type LookupOutcome } from "../../src/api/lookup-gate.js";
import { RateLimited } from "../../src/api/rate-limit.js";

type Done = (outcome: LookupOutcome) => void;

/** Starts `n` acquisitions of `address`; `ran` lists the ends of those let run, in order; `refused` those answered 429. */
function start(gate: LookupGate, address: string, n: number) {
  const ran: Done[] = [];
  const refused: RateLimited[] = [];
  const all = Array.from({ length: n }, () =>
    gate.acquire(address).then(
      (done) => void ran.push(done),
      (error: unknown) => void refused.push(error as RateLimited),
    ),
  );
  return { ran, refused, all: Promise.all(all) };
}

/** Lets the gate's waiters look again (each wake is a resolved promise). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("LookupGate", () => {
  it("lets twenty fresh good tokens of one address through, ten at a time, taking nothing of its limit", async () => {
    const gate = new LookupGate({ refused: { perMinute: 20, burst: 10 } }, () => 0);
    const fleet = start(gate, "203.0.113.1", 20);
    await settle();
    expect([fleet.ran.length, gate.inFlight]).toEqual([10, 10]);
    for (const done of fleet.ran.slice(0, 10)) done("known");
    await settle();
    expect([fleet.ran.length, fleet.refused.length]).toEqual([20, 0]);
    for (const done of fleet.ran.slice(10)) done("known");
    // The limit is whole: ten more run at once.
    const more = start(gate, "203.0.113.1", 10);
    await more.all;
    expect(more.ran).toHaveLength(10);
  });

  it("a spray sent all at once runs no more look-ups than the limit holds; the rest are refused with the wait", async () => {
    const gate = new LookupGate({ refused: { perMinute: 20, burst: 10 } }, () => 0);
    const spray = start(gate, "203.0.113.2", 1000);
    await settle();
    expect(spray.ran).toHaveLength(10);
    // 100 wait for those ten, the other 890 are turned away at once.
    expect(spray.refused).toHaveLength(890);
    for (const done of spray.ran) done("unknown");
    await spray.all;
    expect([spray.ran.length, spray.refused.length]).toEqual([10, 990]);
    // 20 a minute: the next in 3 s.
    expect(spray.refused.at(-1)!.retryAfter).toBe(3);
    expect(spray.refused.at(-1)!.message).toContain("Too many tokens GitHub refused from this address");
    expect(gate.inFlight).toBe(0);
  });

  it("a look-up held while its outcome is unknown is given back when GitHub names an account", async () => {
    let now = 0;
    const gate = new LookupGate({ refused: { perMinute: 6, burst: 2 } }, () => now);
    const a = start(gate, "198.51.100.1", 3);
    await settle();
    // Two held (the limit), the third waits for them.
    expect(a.ran).toHaveLength(2);
    a.ran[0]!("known");
    await settle();
    expect(a.ran).toHaveLength(3);
    a.ran[1]!("unknown");
    a.ran[2]!("unknown");
    await a.all;
    const over = await gate.acquire("198.51.100.1").catch((e: unknown) => e);
    expect(over).toBeInstanceOf(RateLimited);
    expect((over as RateLimited).retryAfter).toBe(10);
    // Refilled with time; an end told twice counts once.
    now += 10_000;
    const done = await gate.acquire("198.51.100.1");
    done("unknown");
    done("unknown");
    now += 10_000;
    expect(typeof (await gate.acquire("198.51.100.1"))).toBe("function");
  });

  it("bounds look-ups at once overall; another address's wait ends when any look-up does", async () => {
    const gate = new LookupGate({ refused: { perMinute: 20, burst: 10 }, overall: 3 }, () => 0);
    const first = start(gate, "192.0.2.1", 3);
    const second = start(gate, "192.0.2.2", 1);
    await settle();
    expect([first.ran.length, second.ran.length]).toEqual([3, 0]);
    first.ran[0]!("known");
    await second.all;
    expect(second.ran).toHaveLength(1);
  });

  it("no limit on refusals (0) still bounds look-ups at once", async () => {
    const gate = new LookupGate({ refused: { perMinute: 0, burst: 1 }, perAddress: 2, queue: 1 }, () => 0);
    const a = start(gate, "192.0.2.9", 4);
    await settle();
    expect([a.ran.length, a.refused.length]).toEqual([2, 1]);
    expect(a.refused[0]!.message).toContain("Too many tokens waiting to be asked of GitHub from this address");
    for (const done of a.ran.slice(0, 2)) done("unknown");
    await a.all;
    expect(a.ran).toHaveLength(3);
  });
});
