/**
 * What an outgoing webhook carries: the event's JSON (`format: json`), or a
 * chat message (`format: slack`), `{"text": "…"}`, which Slack's incoming
 * webhooks take and Discord's take at their `/slack` address. And the
 * delivery's id, the same on every retry.
 */
import { createHash } from "node:crypto";
import type { LeaseEvent } from "../ledger/events/event-types.js";

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The raw body of a delivery: the bytes signed and sent. */
export function webhookBody(event: LeaseEvent, format: WebhookFormat): string {
  return format === "slack" ? JSON.stringify({ text: slackText(event) }) : JSON.stringify(event);
}

/**
 * The delivery's id (`webhook-id`): one per event and target,
 * derived from both, so that every retry, and any replica, sends the same
 * one, and a receiver that sees it twice knows it has the event already.
 */
export function deliveryId(eventId: string, url: string, format: WebhookFormat): string {
  const h = createHash("sha256").update(`${eventId}\n${format}\n${url}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * Text for Slack's mrkdwn (and Discord): `&`, `<` and `>` escaped as Slack
 * asks, so that no `<!channel>`, `<@U123>` or `<https://…|link>` can be
 * written by whoever chose the text; an `@` is followed by a zero-width
 * space, so that Discord reads no `@everyone`; control characters and
 * newlines become spaces; cut to `max` characters.
 */
export function chatText(text: string, max = 60): string {
  const points = [...text.slice(0, max * 2)];
  const cut = points.length > max ? `${points.slice(0, max).join("")}…` : points.join("");
  return cut
    .replace(/[\p{Cc}\p{Cf}]/gu, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/@/g, "@\u200b");
}

/** `14:00 UTC`, or `2026-12-03 14:00 UTC` when not on the day of `at`. */
function until(expiresAt: string, at: string): string {
  const [day, time] = [expiresAt.slice(0, 10), expiresAt.slice(11, 16)];
  return day === at.slice(0, 10) ? `${time} UTC` : `${day} ${time} UTC`;
}

/** One line a person reads in a chat channel, e.g. `alice claimed octo/app#12 (lease #3, until 14:00 UTC)`. */
export function slackText(e: LeaseEvent): string {
  const holder = chatText(e.holder.login) + (e.holder.instance ? ` (${chatText(e.holder.instance, 40)})` : "");
  const actor = e.actor ? chatText(e.actor.login) : null;
  const byOther = actor !== null && e.actor!.id !== e.holder.id;
  const issue = `${chatText(e.repo, 100)}#${e.issue}`;
  const term = e.expires_at === null ? "open-ended" : `until ${until(e.expires_at, e.at)}`;
  const lease = `lease #${e.token}`;
  switch (e.type) {
    case "lease.acquired":
      return byOther ? `${actor} gave ${holder} ${issue} (${lease}, ${term})` : `${holder} claimed ${issue} (${lease}, ${term})`;
    case "lease.renewed":
      if (e.cause === "work") return `${holder}'s lease on ${issue} follows its work (${lease}, ${term})`;
      return byOther ? `${actor} renewed ${holder}'s lease on ${issue} (${lease}, ${term})` : `${holder} renewed ${issue} (${lease}, ${term})`;
    case "lease.released":
      return byOther ? `${actor} released ${holder}'s lease on ${issue} (${lease})` : `${holder} released ${issue} (${lease})`;
    case "lease.expired":
      return `${holder}'s lease on ${issue} expired (${lease})`;
    case "lease.handed_off":
      return `${issue} passed to ${holder}, first in line (${lease}, ${term})`;
    case "lease.ended": {
      const why =
        e.cause === "close" ? ": the issue was closed" : e.cause === "label_removed" ? ": its label was taken off" : byOther ? ` by ${actor}` : "";
      return `${holder}'s lease on ${issue} ended${why} (${lease})`;
    }
  }
}
