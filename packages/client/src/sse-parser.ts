/**
 * A Server-Sent Events parser, as the HTML standard's "event stream
 * interpretation" reads a stream (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * lines end in CRLF, LF or CR; a blank line dispatches the event built so
 * far; `data:` lines are joined with LF; `id:` sets the last event id, kept
 * from event to event; `retry:` (digits only) sets the reconnection time;
 * a line starting with `:` is a comment (a heartbeat); other fields are
 * ignored, and so is an event the stream ends in the middle of.
 *
 * It takes text (the caller decodes the bytes as UTF-8, which also drops a
 * leading byte order mark) in chunks cut anywhere, also between the CR and
 * the LF of one line end.
 */

export type SseItem =
  /** An event: its type (`message` when it named none), its data, and the last event id as of its dispatch. */
  | { kind: "event"; event: string; data: string; lastEventId: string }
  /** A comment line's text, without the colon and one leading space. */
  | { kind: "comment"; text: string }
  /** The reconnection time the server asks for (ms). */
  | { kind: "retry"; ms: number };

/** The longest line or event's data kept (characters): a stream that sends more is not an event stream worth reading. */
export const MAX_EVENT_CHARS = 1 << 20;

export class SseParser {
  /** The last event id as of the last blank line: what a reconnect sends as `Last-Event-ID`. */
  lastEventId: string;
  #line = "";
  /** The last chunk ended in CR: an LF first in the next one ends no second line. */
  #afterCr = false;
  #data = "";
  #event = "";
  #id: string;

  /** `lastEventId`: the id a reconnect resumed from, kept until the stream sends another. */
  constructor(lastEventId = "") {
    this.lastEventId = lastEventId;
    this.#id = lastEventId;
  }

  /** Parses the next chunk of text; answers what it completed, in order. Throws when a line or an event's data grows past `MAX_EVENT_CHARS`. */
  feed(text: string): SseItem[] {
    const items: SseItem[] = [];
    let start = 0;
    if (this.#afterCr && text.startsWith("\n")) start = 1;
    this.#afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.#line + text.slice(start, i);
      this.#line = "";
      this.#take(line, items);
      if (c === 13) {
        if (i + 1 === text.length) this.#afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#line += text.slice(start);
    if (this.#line.length > MAX_EVENT_CHARS) throw new Error(`a line of the event stream is longer than ${MAX_EVENT_CHARS} characters`);
    return items;
  }

  #take(line: string, items: SseItem[]): void {
    if (line === "") return this.#dispatch(items);
    if (line.startsWith(":")) {
      items.push({ kind: "comment", text: line.slice(line.startsWith(": ") ? 2 : 1) });
      return;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.#event = value;
        break;
      case "data":
        this.#data += `${value}\n`;
        if (this.#data.length > MAX_EVENT_CHARS) throw new Error(`an event's data is longer than ${MAX_EVENT_CHARS} characters`);
        break;
      case "id":
        // An id with a NUL in it is ignored, as the standard says.
        if (!value.includes("\0")) this.#id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) items.push({ kind: "retry", ms: Number(value) });
        break;
      default:
      // Unknown fields are ignored.
    }
  }

  #dispatch(items: SseItem[]): void {
    this.lastEventId = this.#id;
    const data = this.#data;
    const event = this.#event;
    this.#data = "";
    this.#event = "";
    if (data === "") return;
    items.push({ kind: "event", event: event === "" ? "message" : event, data: data.slice(0, -1), lastEventId: this.lastEventId });
  }
}
