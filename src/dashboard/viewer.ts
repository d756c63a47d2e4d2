/**
 * Who is looking at the board: nobody (anonymous: public repositories only),
 * a signed-in session (cookie), or, on the JSON listing, the caller of a
 * bearer token.
 */
import type { IncomingMessage } from "node:http";
import type { Viewer } from "./queries.js";
import { ACCESS_FRESH_MS, openSession, readCookies, SESSION_COOKIE, type Session } from "./session.js";
import type { DashboardSettings } from "./settings.js";

/**
 * The account behind a bearer token and the private repositories it may
 * see; null when GitHub refuses the token. Throws when GitHub does not
 * answer, and RateLimited when GitHub refused too many tokens from `address`.
 */
export type BearerViewer = (token: string, address?: string) => Promise<Viewer | null>;

export type SessionViewer = { kind: "none" } | { kind: "fresh"; viewer: Viewer } | { kind: "stale"; session: Session };

export function sessionViewer(req: IncomingMessage, settings: DashboardSettings, now: number): SessionViewer {
  if (!settings.sessionKey) return { kind: "none" };
  const session = openSession(settings.sessionKey, readCookies(req).get(SESSION_COOKIE), now);
  if (!session) return { kind: "none" };
  if (now - session.checkedAt > ACCESS_FRESH_MS || session.checkedAt > now) return { kind: "stale", session };
  return { kind: "fresh", viewer: { id: session.id, login: session.login, visible: session.repos, partial: session.partial } };
}

/**
 * The viewer a signed-in session makes of the request, as the listing and
 * the event stream read it; null without one. A session whose list of
 * private repositories is stale shows public ones until the board renews it.
 */
export function sessionViewerOf(req: IncomingMessage, settings: DashboardSettings, now: number): Viewer | null {
  const s = sessionViewer(req, settings, now);
  if (s.kind === "fresh") return s.viewer;
  if (s.kind === "stale") return { id: s.session.id, login: s.session.login, visible: [], partial: true };
  return null;
}

/** The token of `Authorization: Bearer <token>` (or `token <token>`): null without the header, "malformed" for anything else. */
export function bearerToken(req: IncomingMessage): string | null | "malformed" {
  const header = req.headers.authorization;
  if (header === undefined || header === "") return null;
  const m = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : "malformed";
}
