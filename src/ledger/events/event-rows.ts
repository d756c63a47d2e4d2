/**
 * A lease event's row, as both stores keep it (migration 19: the `events`
 * table), and the event other tools see made from it (event-types.ts): the
 * JSON's fields in the order the README shows them.
 */
import type { EventCause, LeaseEventType, StoredEvent } from "./event-types.js";

export interface EventRow {
  pos: number;
  installation: number;
  seq: number;
  repo_id: number;
  repo: string;
  issue: number;
  type: string;
  at: number;
  holder_id: number;
  holder_login: string;
  holder_instance: string | null;
  token: number;
  expires_at: number | null;
  actor_id: number | null;
  actor_login: string | null;
  cause: string;
}

/** The columns of `events`, in the order the stores write them. */
export const EVENT_COLUMNS =
  "pos, installation, seq, repo_id, repo, issue, type, at, holder_id, holder_login, holder_instance, token, expires_at, actor_id, actor_login, cause";

export function storedEventOf(r: EventRow): StoredEvent {
  return {
    pos: r.pos,
    installation: r.installation,
    repoId: r.repo_id,
    event: {
      id: String(r.pos),
      seq: r.seq,
      type: r.type as LeaseEventType,
      at: new Date(r.at).toISOString(),
      repo: r.repo,
      issue: r.issue,
      holder: { login: r.holder_login, id: r.holder_id, instance: r.holder_instance },
      token: r.token,
      expires_at: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
      actor: r.actor_id === null ? null : { login: r.actor_login ?? "", id: r.actor_id },
      cause: r.cause as EventCause,
    },
  };
}

/** How many events a read answers when the caller does not say. */
export const EVENTS_PAGE = 500;
