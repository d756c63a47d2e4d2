/**
 * `webhooks:`, where a repository's lease events are sent (issue 23): a list
 * of targets, each `{url, events, format}`. `events` defaults to every type,
 * `format` to `json` (the event's JSON); `slack` sends `{"text": …}`.
 *
 * A target's URL is checked by the target guard (events/target-guard.ts)
 * with the operator's policy (`EVENTS_WEBHOOK_ALLOW_PRIVATE`, given to the
 * schema it is built for: schema.ts `configSchemaFor`): `https://` only, and no literal address nor name that
 * reaches the app's own network, so that a refused target makes the config
 * invalid like any other mistake. A hostname's addresses are checked again
 * at each delivery.
 */
import { z } from "zod";
import { checkTargetUrl, type TargetPolicy } from "../events/target-guard.js";
import { LEASE_EVENT_TYPES, type LeaseEventType } from "../ledger/events/event-types.js";
import { WEBHOOK_FORMATS, type WebhookFormat } from "../events/webhook-body.js";
import { describeKind, echo, notThis } from "./echo.js";

/** A target as the app uses it. */
export interface WebhookTarget {
  /** As the URL parser writes it (`https://example.com/hook`). */
  url: string;
  events: readonly LeaseEventType[];
  format: WebhookFormat;
}

// More targets than this is not a notification, it is a fan-out service.
export const WEBHOOKS_MAX = 5;

/** The keys of a target, for an unknown key's guess (issues.ts). */
export const TARGET_KEYS = ["url", "events", "format"] as const;

const typeList = LEASE_EVENT_TYPES.map((t) => `\`${t}\``).join(", ");

function urlSchema(policy: TargetPolicy) {
  return z.string({ error: (issue) => `must be the receiver's URL, such as \`https://example.com/hooks/leases\`${notThis(issue.input)}.` }).transform((text, ctx) => {
    const check = checkTargetUrl(text, policy);
    if (check.ok) return check.url.href;
    // The host only: the rest of a URL (a chat's webhook path) is a credential, not to be quoted back.
    const message = check.host === null ? `${check.problem}.` : `${echo(check.host, "its host")} ${check.problem}.`;
    ctx.issues.push({ code: "custom", input: text, message });
    return z.NEVER;
  });
}

function eventsSchema() {
  return z
    .array(
      z.enum(LEASE_EVENT_TYPES as [LeaseEventType, ...LeaseEventType[]], {
        error: (issue) => `${echo(issue.input)} is not an event type; use ${typeList}.`,
      }),
      { error: (issue) => `must be a list of event types, such as \`[lease.acquired, lease.released]\`${notThis(issue.input)}.` },
    )
    .min(1, { error: "lists no event; leave `events` out to send every type." });
}

function targetSchema(policy: TargetPolicy) {
  return z
    .object(
      {
        url: urlSchema(policy),
        events: eventsSchema().optional(),
        format: z
          .enum(WEBHOOK_FORMATS, { error: (issue) => `must be \`json\` or \`slack\`${notThis(issue.input)}.` })
          .default("json"),
      },
      { error: (issue) => `must be a mapping with \`url\` (and \`events\`, \`format\`)${notThis(issue.input)}.` },
    )
    .strict()
    .transform((t): WebhookTarget => ({ url: t.url, events: t.events ?? LEASE_EVENT_TYPES, format: t.format }));
}

export function webhooksSchema(policy: TargetPolicy) {
  return z
    .array(targetSchema(policy), { error: (issue) => `must be a list of targets, such as \`- url: https://example.com/hooks/leases\`; it is ${describeKind(issue.input)}.` })
    .superRefine((targets, ctx) => {
      if (targets.length > WEBHOOKS_MAX) {
        ctx.addIssue({ code: "custom", input: targets, message: `lists ${targets.length} targets; at most ${WEBHOOKS_MAX} are allowed.` });
        return;
      }
      // One URL twice would get every event twice, under the same outbox lane.
      const seen = new Set<string>();
      targets.forEach((t, i) => {
        if (seen.has(t.url)) ctx.addIssue({ code: "custom", path: [i, "url"], input: t.url, message: "names a URL already listed." });
        seen.add(t.url);
      });
    });
}

/** The `webhooks:` key of the config (schema.ts), its targets checked by `policy`. */
export function webhooksKey(policy: TargetPolicy) {
  return webhooksSchema(policy)
    .default([])
    .describe(
      "Where this repository's lease events are sent, signed as Standard Webhooks with the installation's key (the operator's `issue-leases webhook-key`): a list of at most 5 targets, " +
        "each `url` (`https://` only), `events` (the types to send; default all) and `format` (`json`, the event itself, the default; " +
        "or `slack`, a `{\"text\": …}` message for Slack and Discord). Loopback and private addresses are refused unless the operator " +
        "allows them; link-local and cloud metadata addresses always. None by default.",
    );
}
