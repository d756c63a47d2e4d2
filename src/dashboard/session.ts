/**
 * The board's cookies: a signed (HMAC-SHA256), HttpOnly, SameSite=Lax
 * session, Secure behind HTTPS. Everything a session needs is in the cookie
 * itself, so any replica behind a load balancer reads it alike and nothing
 * is kept on the server: who signed in (GitHub id and login), the ids of
 * the private repositories GitHub said they may see and when it said so,
 * and when the session ends. No token: the user's token is used during the
 * sign-in request only (see oauth.ts).
 *
 * A second short-lived cookie carries the sign-in's `state` and where to go
 * after it, from /login to /oauth/callback.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const SESSION_COOKIE = "il_session";
export const SIGN_IN_COOKIE = "il_sign_in";
/** How long a session lasts: a working day, like GitHub's own user tokens (8 hours). */
export const SESSION_MS = 8 * 3_600_000;
/** How long the list of private repositories is trusted before GitHub is asked again. */
export const ACCESS_FRESH_MS = 10 * 60_000;
/** How long a sign-in may take, from /login to the callback. */
export const SIGN_IN_MS = 10 * 60_000;
/** Browsers keep cookies up to about 4 KB: the list of repositories is cut to fit, and the session says so. */
const MAX_COOKIE_VALUE = 3_600;

export interface Session {
  id: number;
  login: string;
  /** Ids of the private repositories GitHub said the user may see. */
  repos: number[];
  /** When GitHub said so (ms). */
  checkedAt: number;
  expiresAt: number;
  /** True when the list was longer than a cookie holds and was cut. */
  partial: boolean;
}

export interface SignIn {
  state: string;
  /** A path on this server to go back to. */
  returnTo: string;
  expiresAt: number;
}

function mac(key: Buffer, purpose: string, payload: string): string {
  return createHmac("sha256", key).update(`${purpose}.${payload}`).digest("base64url");
}

function seal(key: Buffer, purpose: string, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}.${mac(key, purpose, payload)}`;
}

function unseal(key: Buffer, purpose: string, text: string | undefined): unknown {
  if (!text) return null;
  const dot = text.indexOf(".");
  if (dot <= 0) return null;
  const payload = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1));
  const wanted = Buffer.from(mac(key, purpose, payload));
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
  } catch {
    return null;
  }
}

/** Sorted ids as base-36 gaps: a few characters each. */
function packIds(ids: number[]): string {
  let last = 0;
  return [...new Set(ids)]
    .sort((a, b) => a - b)
    .map((id) => {
      const gap = (id - last).toString(36);
      last = id;
      return gap;
    })
    .join(".");
}

function unpackIds(text: string): number[] | null {
  if (text === "") return [];
  let last = 0;
  const ids: number[] = [];
  for (const part of text.split(".")) {
    const gap = Number.parseInt(part, 36);
    if (!Number.isSafeInteger(gap) || gap <= 0) return null;
    ids.push((last += gap));
  }
  return ids;
}

export function sealSession(key: Buffer, s: Session): string {
  let repos = s.repos;
  let partial = s.partial;
  for (;;) {
    const value = seal(key, "session", { i: s.id, l: s.login, r: packIds(repos), c: s.checkedAt, e: s.expiresAt, p: partial ? 1 : 0 });
    if (value.length <= MAX_COOKIE_VALUE || repos.length === 0) return value;
    repos = repos.slice(0, Math.floor(repos.length * 0.9));
    partial = true;
  }
}

/** The session in the cookie, or null when it is absent, forged, malformed or over. */
export function openSession(key: Buffer, text: string | undefined, now: number): Session | null {
  const v = unseal(key, "session", text) as Record<string, unknown> | null;
  if (!v || typeof v !== "object") return null;
  const { i, l, r, c, e, p } = v;
  if (typeof i !== "number" || typeof l !== "string" || typeof r !== "string" || typeof c !== "number" || typeof e !== "number") return null;
  const repos = unpackIds(r);
  if (!repos || e <= now) return null;
  return { id: i, login: l, repos, checkedAt: c, expiresAt: e, partial: p === 1 };
}

export function sealSignIn(key: Buffer, s: SignIn): string {
  return seal(key, "sign-in", { s: s.state, r: s.returnTo, e: s.expiresAt });
}

export function openSignIn(key: Buffer, text: string | undefined, now: number): SignIn | null {
  const v = unseal(key, "sign-in", text) as Record<string, unknown> | null;
  if (!v || typeof v.s !== "string" || typeof v.r !== "string" || typeof v.e !== "number" || v.e <= now) return null;
  return { state: v.s, returnTo: v.r, expiresAt: v.e };
}

/** Compares the `state` GitHub sent back with the one the cookie carries, in constant time. */
export function sameState(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function readCookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax, Path=/, Secure when served over HTTPS; maxAgeMs 0 clears it. */
export function cookie(name: string, value: string, maxAgeMs: number, secure: boolean): string {
  const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** A path on this server to return to after signing in: anything else (another host, `//host`, a backslash) is the board. */
export function safeReturnTo(path: string | null | undefined): string {
  if (!path || path.length > 2_000 || !path.startsWith("/") || path.startsWith("//") || /[\\\s\u0000-\u001f]/.test(path)) return "/leases";
  return path;
}
