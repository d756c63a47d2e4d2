/**
 * `GET /api/v1/events`: the lease events as Server-Sent Events
 * (src/events/), with the listing's visibility: without a token, public
 * repositories' events only; with `Authorization: Bearer <GitHub token>` (or
 * the board's signed-in session), also those of the private repositories
 * that account may read. Filters and `Last-Event-ID`: events-request.ts.
 *
 * Each stream holds a connection, so they are counted: an anonymous one per
 * client address (EVENTS_STREAMS_PER_ADDRESS), one with a token or session
 * per GitHub account, a bot's per account and installation
 * (EVENTS_STREAMS_PER_CALLER), all in all
 * (EVENTS_STREAMS_MAX), and their openings per address per minute
 * (API_ADDRESS_RATE_LIMIT's); past any, 429.
 * What the caller may see is asked again every few minutes while the stream
 * lasts: a token GitHub no longer accepts ends it.
 *
 * A `repo=` the app's memory does not show the caller (a repository where
 * nothing has happened yet, so no webhook told the app it is public) is
 * asked of GitHub with the caller's token, as the API asks before a claim
 * (access.ts): one it sees, on which the app is installed, is streamed, and
 * what GitHub said of it is remembered, as a claim through the API does. A
 * private one still needs the listing's visibility. An anonymous stream has
 * no token to ask with: it names only repositories the app knows public.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { EventHub } from "../events/hub.js";
import { EventStream, type StreamEnd } from "../events/event-stream.js";
import type { StreamFilter } from "../events/stream-filter.js";
import type { EventStreamSettings } from "../events/stream-settings.js";
import type { BoardReads } from "../ledger/board/board-roles.js";
import type { ApiRepo } from "./access.js";
import { type Answer, errorAnswer, NOT_FOUND } from "./answers.js";
import { clientAddress } from "./client-address.js";
import { type EventsQuery, eventsQuery } from "./events-request.js";
import { bearerToken, GitHubUnavailable } from "./identity.js";
import { RateLimited, RateLimiter, type RateLimitSettings } from "./rate-limit.js";
import { isAnswer } from "./requests.js";
import { send } from "./respond.js";
import { StreamSlots } from "./stream-slots.js";

export const EVENTS_PATH = "/api/v1/events";

/** Who calls: the account, and the private repositories it may see (the listing's viewer, dashboard/viewer.ts). */
export interface StreamViewer {
  id: number;
  login: string;
  visible: readonly number[];
  /**
   * A bot's: what its token reaches (token-scope.ts `key`). Its streams count against its installation, not against
   * the account every installation of its app shares (`github-actions[bot]`: every workflow's).
   */
  scope?: string;
}

export interface EventsRouteDeps {
  hub: EventHub;
  repos: Pick<BoardReads, "boardRepo">;
  settings: EventStreamSettings;
  /** Who a bearer token is and what it may see; null when GitHub refuses it. Absent: tokens are refused (401). */
  bearer?: (token: string, address: string) => Promise<StreamViewer | null>;
  /** The board's signed-in session the request carries, if any. */
  session?: (req: IncomingMessage) => StreamViewer | null;
  /**
   * A repository as a bearer token sees it, when the app is installed on it (the API's RepoAccess.repo); null
   * otherwise. Absent: a `repo=` is looked up in the app's memory only.
   */
  lookup?: (token: string, owner: string, name: string) => Promise<ApiRepo | null>;
  /** Remembers what GitHub said of a repository looked up, as a claim through the API does (leasing/remember-repos.ts). */
  remember?: (repoId: number, full: string, installation: number, isPrivate?: boolean) => Promise<void>;
  /** Stream openings per client address (the listing's API_ADDRESS_RATE_LIMIT). */
  perAddress: RateLimitSettings;
  /** Proxies whose X-Forwarded-For names the client (client-address.ts). */
  trustProxyHops: number;
  clock: () => number;
  log: Pick<Logger, "debug" | "info" | "warn">;
  /** How often a stream's access is asked again; default 5 minutes. */
  recheckMs?: number;
}

type Credential = { kind: "token"; token: string } | { kind: "session" } | { kind: "none" };

const CHALLENGE = { headers: { "www-authenticate": "Bearer" } };

export function eventsHandler(deps: EventsRouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const slots = new StreamSlots(deps.settings.maxStreams);
  const opens = new RateLimiter<string>(deps.perAddress, deps.clock);

  /** The caller, by the credential it sent; null: anonymous. Throws when GitHub does not answer. */
  const viewerOf = async (credential: Credential, req: IncomingMessage, address: string): Promise<StreamViewer | null | Answer> => {
    if (credential.kind === "none") return null;
    if (credential.kind === "session") return deps.session?.(req) ?? null;
    if (!deps.bearer) return errorAnswer(401, "unauthorized", "This server takes no tokens on the stream; leave the header out for public repositories.", CHALLENGE);
    return (await deps.bearer(credential.token, address)) ?? errorAnswer(401, "unauthorized", "GitHub does not accept this token.", CHALLENGE);
  };

  /** Everything up to the stream's start: the filter it will use and who asks (null: anonymous), or the answer that refuses it. */
  const admit = async (req: IncomingMessage, query: EventsQuery, credential: Credential, address: string): Promise<{ filter: StreamFilter; caller: string | null } | Answer> => {
    let who: StreamViewer | null | Answer;
    try {
      who = await viewerOf(credential, req, address);
    } catch (error) {
      if (error instanceof RateLimited) return errorAnswer(429, "rate_limited", `${error.message}.`, { headers: { "retry-after": String(error.retryAfter) } });
      deps.log.warn({ err: error }, "events: GitHub did not say who a bearer token is");
      return errorAnswer(502, "github_unavailable", "GitHub did not say who the token is; try again.", { headers: { "retry-after": "5" } });
    }
    if (who !== null && isAnswer(who)) return who;
    if (query.holder && "me" in query.holder && !who) {
      return errorAnswer(401, "unauthorized", "holder=@me needs a token (`Authorization: Bearer <GitHub token>`) or a signed-in session.", CHALLENGE);
    }
    const visible = new Set(who?.visible ?? []);
    let repoIds: Set<number> | null = null;
    if (query.repos.length > 0) {
      repoIds = new Set();
      for (const name of query.repos) {
        let id: number | null;
        try {
          id = await repoIdFor(name, credential, visible);
        } catch (error) {
          if (!(error instanceof GitHubUnavailable)) throw error;
          deps.log.warn({ err: error }, "events: GitHub did not say whether a token sees a repository");
          return errorAnswer(502, "github_unavailable", "GitHub did not say whether the token sees the repository; try again.", { headers: { "retry-after": "5" } });
        }
        // A private repository the caller may not see is answered as one that does not exist.
        if (id === null) return NOT_FOUND;
        repoIds.add(id);
      }
    }
    const holder = query.holder === null ? null : "me" in query.holder ? { id: who!.id } : { login: query.holder.login };
    const caller = who === null ? null : who.scope === undefined ? String(who.id) : `${who.id}:${who.scope}`;
    return { filter: { visible, repoIds, holder, issue: query.issue }, caller };
  };

  /** The id of repository `name` when the caller may watch it; null when not (or when it is not the app's). */
  const repoIdFor = async (name: string, credential: Credential, visible: ReadonlySet<number>): Promise<number | null> => {
    const found = await deps.repos.boardRepo(name);
    if (found && (found.private === false || visible.has(found.repoId))) return found.repoId;
    if (credential.kind !== "token" || !deps.lookup) return null;
    const [owner, repo] = name.split("/") as [string, string];
    const seen = await deps.lookup(credential.token, owner, repo);
    // Private (or not said): as the listing decides, by what the caller's installations show it.
    if (!seen || (seen.private !== false && !visible.has(seen.id))) return null;
    // Its public flag reaches the ledger before its first event: the stream's hub then shows that event to anyone.
    await deps.remember?.(seen.id, `${seen.owner}/${seen.name}`, seen.installation, seen.private);
    return seen.id;
  };

  return async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return false;
    }
    if (url.pathname !== EVENTS_PATH) return false;
    if ((req.method ?? "GET").toUpperCase() !== "GET") {
      send(res, errorAnswer(405, "method_not_allowed", "Use GET.", { headers: { allow: "GET" } }));
      return true;
    }
    const query = eventsQuery(url, req);
    if (isAnswer(query)) return answer(res, query);
    const token = bearerToken(req);
    if (token === "malformed") return answer(res, errorAnswer(401, "unauthorized", "Authorization must be `Bearer <GitHub token>`.", CHALLENGE));
    const credential: Credential = token !== null ? { kind: "token", token } : deps.session?.(req) ? { kind: "session" } : { kind: "none" };
    if (!deps.hub.ready && !(await deps.hub.start())) {
      return answer(res, errorAnswer(503, "unavailable", "The event stream cannot read the ledger now; try again.", { headers: { "retry-after": "5" } }));
    }

    const address = clientAddress(req, deps.trustProxyHops);
    const wait = opens.take(address);
    if (wait > 0) return answer(res, errorAnswer(429, "rate_limited", `Too many streams opened from this address; try again in ${wait} s.`, { headers: { "retry-after": String(wait) } }));
    // An anonymous client's slot is its address's, taken before anything is read; a caller's is its account's, wherever
    // it connects from (a fleet's workers behind one address), once GitHub said who it is.
    let slot: string | null = null;
    const takeSlot = (key: string, limit: number, whose: string): Answer | null => {
      const full = slots.take(key, limit);
      if (full === null) {
        slot = key;
        return null;
      }
      const message = full === "key" ? `Too many streams open ${whose}` : "Too many streams open on this server";
      return errorAnswer(429, "too_many_streams", `${message}; close one, or try again later.`, { headers: { "retry-after": "10" } });
    };
    const freeSlot = () => {
      if (slot !== null) slots.release(slot);
      slot = null;
    };
    if (credential.kind === "none") {
      const refused = takeSlot(`address ${address}`, deps.settings.maxStreamsPerAddress, "from this address");
      if (refused) return answer(res, refused);
    }

    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit(req, query, credential, address);
    } catch (error) {
      deps.log.warn({ err: error }, "events: the ledger did not answer");
      admitted = errorAnswer(503, "unavailable", "The ledger did not answer; try again.", { headers: { "retry-after": "5" } });
    }
    if (!isAnswer(admitted) && admitted.caller !== null) {
      const refused = takeSlot(`caller ${admitted.caller}`, deps.settings.maxStreamsPerCaller, "for this account");
      if (refused) admitted = refused;
    }
    if (isAnswer(admitted)) {
      freeSlot();
      return answer(res, admitted);
    }
    const { filter } = admitted;
    if (!deps.hub.ready) {
      freeSlot();
      return answer(res, errorAnswer(503, "unavailable", "The app is shutting down; try again.", { headers: { "retry-after": "5" } }));
    }

    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      // nginx buffers responses unless told not to: events would arrive in lumps.
      "x-accel-buffering": "no",
    });
    req.socket.setNoDelay(true);
    let recheck: NodeJS.Timeout | undefined;
    const stream = new EventStream({
      hub: deps.hub,
      out: res,
      filter,
      maxBufferedBytes: deps.settings.clientBufferBytes,
      onEnd: (how: StreamEnd, error?: unknown) => {
        freeSlot();
        clearInterval(recheck);
        if (how === "failed") deps.log.warn({ err: error }, "events: a stream's replay failed; the client will resume");
        else if (how === "dropped") deps.log.info({ address }, "events: a client that did not keep up was disconnected; it will resume");
      },
    });
    res.on("close", () => stream.stop());
    if (credential.kind !== "none") {
      recheck = setInterval(() => {
        viewerOf(credential, req, address).then(
          (who) => {
            if (who === null || isAnswer(who)) stream.close();
            else stream.restrict(new Set(who.visible));
          },
          () => undefined, // GitHub not answering changes nothing: asked again next time.
        );
      }, deps.recheckMs ?? 5 * 60_000).unref();
    }
    await stream.open(query.lastEventId);
    return true;
  };
}

function answer(res: ServerResponse, a: Answer): true {
  send(res, a);
  return true;
}
