/**
 * The Server-Sent Events parser, against the HTML standard's rules: every
 * stream is also fed cut at every position (and one character at a time),
 * since a chunk from the network may end anywhere, between the CR and the
 * LF of one line end too, and must parse the same.
 */
import { describe, expect, it } from "vitest";
import { type SseItem, SseParser } from "@issue-leases/client";

function parseWhole(text: string, lastEventId?: string): SseItem[] {
  return new SseParser(lastEventId).feed(text);
}

function parseChunks(chunks: string[]): SseItem[] {
  const parser = new SseParser();
  return chunks.flatMap((c) => parser.feed(c));
}

/** The stream parsed whole, cut in two at every position, and a character at a time: all the same, returned once. */
function parse(text: string): SseItem[] {
  const whole = parseWhole(text);
  for (let cut = 0; cut <= text.length; cut++) expect(parseChunks([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
  expect(parseChunks([...text])).toEqual(whole);
  return whole;
}

const event = (event: string, data: string, lastEventId = "") => ({ kind: "event", event, data, lastEventId });

describe("SseParser", () => {
  it("reads the app's events: id, event and data, dispatched at the blank line", () => {
    const data = JSON.stringify({ id: "41", type: "lease.released", repo: "octo-org/widgets", issue: 12 });
    expect(parse(`id: 41\nevent: lease.released\ndata: ${data}\n\n`)).toEqual([event("lease.released", data, "41")]);
  });

  it("takes CRLF, LF and CR line ends, mixed, even with a chunk ending between the CR and the LF", () => {
    const items = parse("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n");
    expect(items).toEqual([event("a", "1"), event("b", "2"), event("message", "3")]);
    // CR then LF in two chunks is one line end, not an empty line: no event dispatched early, none lost.
    expect(parseChunks(["data: x\r", "\ndata: y\r", "\n\r", "\n"])).toEqual([event("message", "x\ny")]);
  });

  it("joins multi-line data with LF, and an empty data line adds an empty line", () => {
    expect(parse("data: first\ndata:second\ndata\ndata:  two spaces\n\n")).toEqual([event("message", "first\nsecond\n\n two spaces")]);
    expect(parse("data\n\n")).toEqual([event("message", "")]);
  });

  it("reports comments (the heartbeat) and dispatches nothing for them", () => {
    expect(parse(": heartbeat\n:no space\n\n: another\n")).toEqual([
      { kind: "comment", text: "heartbeat" },
      { kind: "comment", text: "no space" },
      { kind: "comment", text: "another" },
    ]);
  });

  it("keeps the last id from event to event until another is sent; an empty id clears it; one with NUL is ignored", () => {
    const items = parse("id: 7\ndata: a\n\ndata: b\n\nid: 8\u0000x\ndata: c\n\nid\ndata: d\n\n");
    expect(items).toEqual([event("message", "a", "7"), event("message", "b", "7"), event("message", "c", "7"), event("message", "d", "")]);
  });

  it("sets the last event id at a blank line even when no data came, without dispatching anything", () => {
    const parser = new SseParser("3");
    expect(parser.lastEventId).toBe("3");
    expect(parser.feed("id: 9\n")).toEqual([]);
    expect(parser.lastEventId).toBe("3");
    expect(parser.feed("\n")).toEqual([]);
    expect(parser.lastEventId).toBe("9");
    // The id a reconnect resumed from stands until the stream sends another.
    expect(parseWhole("data: x\n\n", "12")).toEqual([event("message", "x", "12")]);
  });

  it("reads retry: with digits only, ignores unknown fields, and forgets the event type after each dispatch", () => {
    expect(parse("retry: 2500\nretry: 1e3\nretry: -1\nfoo: bar\nevent: lease.renewed\ndata: a\n\ndata: b\n\n")).toEqual([
      { kind: "retry", ms: 2500 },
      event("lease.renewed", "a"),
      event("message", "b"),
    ]);
  });

  it("drops an event the stream ends in the middle of, and an event type with no data", () => {
    expect(parse("event: lease.ended\n\ndata: never dispatched\n")).toEqual([]);
  });

  it("treats a field name without a colon as a field with an empty value, and only the first colon splits", () => {
    expect(parse("data:a:b: c\nevent\n\n")).toEqual([event("message", "a:b: c")]);
  });

  it("refuses a line that grows past the limit rather than keep it all", () => {
    const parser = new SseParser();
    const big = "x".repeat(1 << 19);
    parser.feed(`data: ${big}`);
    expect(() => parser.feed(big + big)).toThrow(/longer than/);
  });
});
