/**
 * The board as HTML, rendered on the server: a table of live leases, the
 * filters as a plain GET form, and the side panels. No JavaScript; a little
 * inline CSS. Everything that came from GitHub (titles, logins, labels,
 * repository names) goes through `esc`, and the page's Content-Security-
 * Policy allows no script at all.
 */
import { DEFAULT_CONFIG } from "../config/config.js";
import type { BoardLease, BoardPanels, EndedTenure } from "../ledger/board/board-types.js";
import { BoundedMap } from "../github/bounded-map.js";
import { labelKind } from "../github/labels.js";
import { roughly } from "../github/render.js";
import { type BoardFilters, filterQuery, PAGE_SIZE, SOON_COUNT_CAP, type Viewer } from "./queries.js";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text or an attribute value, safe in HTML. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export interface PageContext {
  now: number;
  /** https://github.com, or the GHE host. */
  web: string;
  viewer: Viewer | null;
  /** Sign-in is configured (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET). */
  signIn: boolean;
  /** The path and query of this page, to come back to after signing in. */
  here: string;
  notices?: string[];
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Relative to now, to the minute (a board is read in minutes, not seconds), with the UTC time on hover. */
export function time(ms: number, now: number): string {
  const d = ms - now;
  const rel = Math.abs(d) < 60_000 ? (d > 0 ? "in under a minute" : "just now") : d > 0 ? `in ${roughly(d)}` : `${roughly(-d)} ago`;
  return `<time datetime="${iso(ms)}" title="${utc(ms)}">${esc(rel)}</time>`;
}

const STYLE = `
:root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--accent:#0969da;--warn:#9a6700}
*{box-sizing:border-box}body{margin:0;font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header{display:flex;gap:16px;align-items:center;padding:10px 24px;border-bottom:1px solid var(--line);background:var(--bg)}
header .brand{font-weight:600;color:var(--fg)}header nav a{margin-right:12px}header nav a.on{font-weight:600;color:var(--fg)}
header .who{margin-left:auto;display:flex;gap:8px;align-items:center}header form{margin:0}
button,.button{font:inherit;padding:4px 12px;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg);cursor:pointer}
.button.primary{background:#1f883d;border-color:#1a7f37;color:#fff}
main{display:grid;grid-template-columns:minmax(0,1fr) 300px;gap:24px;padding:16px 24px}
h1{font-size:20px;margin:0 0 12px}h2{font-size:14px;margin:0 0 8px}
.filters{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:12px}.filters input{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px}
.notice{padding:8px 12px;border:1px solid #d4a72c;background:#fff8c5;border-radius:6px}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;background:var(--bg)}td.num{font-variant-numeric:tabular-nums}td.repo,td.when,td.held-by,td.holder{white-space:nowrap}
.table{overflow-x:auto}td.issue,aside li{overflow-wrap:break-word}
.seg{display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.label{display:inline-block;margin:0 4px 0 0;padding:0 6px;border:1px solid var(--line);border-radius:10px;font-size:12px;color:var(--muted)}
.muted{color:var(--muted)}.soon{color:var(--warn);font-weight:600}
aside section{border:1px solid var(--line);border-radius:6px;padding:12px;margin-bottom:16px}aside ol,aside ul{margin:0;padding-left:18px}
.pages{display:flex;gap:12px;margin-top:12px}
@media (max-width:900px){main{grid-template-columns:minmax(0,1fr)}}
@media (max-width:760px){
header{flex-wrap:wrap;gap:8px 16px;padding:8px 12px}header .who{margin-left:0;flex-wrap:wrap}main{padding:12px;gap:16px}
table.leases,table.leases tbody,table.leases tr,table.leases td{display:block}table.leases thead{display:none}
table.leases tr{border:1px solid var(--line);border-radius:6px;margin-bottom:8px;padding:6px 0}
table.leases td{border:0;padding:2px 10px;white-space:normal}
table.leases td::before{content:attr(data-label);display:inline-block;min-width:6.5em;padding-right:8px;color:var(--muted);font-weight:600}
}
`;

export function layout(ctx: PageContext, title: string, body: string, aside = ""): string {
  const v = ctx.viewer;
  const who = v
    ? `<span>Signed in as <a href="${esc(`${ctx.web}/${v.login}`)}">${esc(v.login)}</a></span>` +
      `<form method="post" action="/logout"><button type="submit">Sign out</button></form>`
    : ctx.signIn
      ? `<a class="button primary" href="/login?return_to=${encodeURIComponent(ctx.here)}">Sign in with GitHub</a>`
      : `<span class="muted">Public repositories only</span>`;
  const mine = v ? `<a href="/leases?holder=%40me"${ctx.here.includes("holder=%40me") ? ' class="on"' : ""}>Mine</a>` : "";
  const notices = (ctx.notices ?? []).map((n) => `<p class="notice">${esc(n)}</p>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · issue-leases</title><style>${STYLE}</style></head>
<body><header><a class="brand" href="/leases">issue-leases</a><nav><a href="/leases">All leases</a>${mine}</nav><div class="who">${who}</div></header>
<main><section class="board">${notices}${body}</section><aside>${aside}</aside></main>
</body></html>`;
}

/** Label name -> whether it is one of the app's own: each name is judged once. */
const APP_LABELS = new BoundedMap<boolean>(10_000);

/** The labels worth showing: not the app's own (`claimed`, `claimed-by: …`, `lease #…`), which the columns already say. */
export function shownLabels(labels: string[]): string[] {
  return labels.filter((l) => {
    let ours = APP_LABELS.get(l);
    if (ours === undefined) {
      APP_LABELS.set(l, (ours = labelKind(DEFAULT_CONFIG.labels, l) !== null));
    }
    return !ours;
  });
}

/**
 * A repository's name, which wraps only after its slash: each segment is an
 * inline block that stays whole on its line (cut with an ellipsis when it is
 * wider than the column by itself), and the one place a line may break is
 * between the two (not a `<wbr>`, which Chrome breaks at even where the
 * table keeps the name on one line).
 */
function repoName(repo: string): string {
  const slash = repo.indexOf("/") + 1;
  const seg = (text: string) => `<span class="seg">${esc(text)}</span>`;
  return slash > 0 ? `${seg(repo.slice(0, slash))}${seg(repo.slice(slash))}` : seg(repo);
}

export function issueLink(web: string, repo: string, issue: number, title: string | null): string {
  const url = `${web}/${repo}/issues/${issue}`;
  return `<a href="${esc(url)}">#${issue}</a>${title === null ? "" : ` <a href="${esc(url)}" class="title">${esc(title)}</a>`}`;
}

/** An API client's worker name beside its account (two instances of one account are two holders). */
function instance(name: string | undefined): string {
  return name ? ` <span class="muted instance">${esc(name)}</span>` : "";
}

function leaseRow(l: BoardLease, ctx: PageContext): string {
  const labels = shownLabels(l.labels)
    .map((name) => `<a class="label" href="/leases?label=${encodeURIComponent(name)}">${esc(name)}</a>`)
    .join("");
  const soon = l.expiresAt !== null && l.expiresAt - ctx.now < 24 * 3_600_000;
  return (
    `<tr class="lease" data-repo="${esc(l.repo)}" data-issue="${l.issue}">` +
    `<td class="repo" data-label="Repository"><a href="/leases/${esc(l.repo)}" title="${esc(l.repo)}">${repoName(l.repo)}</a></td>` +
    `<td class="issue" data-label="Issue">${issueLink(ctx.web, l.repo, l.issue, l.title)}${labels ? `<div>${labels}</div>` : ""}</td>` +
    `<td class="holder" data-label="Holder"><a href="${esc(`${ctx.web}/${l.holder.login}`)}">${esc(l.holder.login)}</a>${instance(l.holder.instance)}</td>` +
    `<td class="num token" data-label="Token">${l.token}</td>` +
    `<td class="when since" data-label="Since">${time(l.acquiredAt, ctx.now)}</td>` +
    `<td class="when expires${soon ? " soon" : ""}" data-label="Expires">${l.expiresAt === null ? '<span class="muted">no expiry</span>' : time(l.expiresAt, ctx.now)}</td>` +
    `<td class="held-by" data-label="Held">${heldBy(ctx.web, l)}${l.waiting ? `<div class="muted">${l.waiting} waiting in line</div>` : ""}</td>` +
    `</tr>`
  );
}

/** How a lease is held: by time (its expiry; an open-ended one until released), while its holder's pull requests are open (linked), or by an exempt label. */
function heldBy(web: string, l: BoardLease): string {
  if (l.heldBy.kind === "time") return l.expiresAt === null ? "until released" : "by time";
  const pulls = l.heldBy.pulls.map((n) => `<a href="${esc(`${web}/${l.repo}/pull/${n}`)}">#${n}</a>`).join(", ");
  if (l.heldBy.kind === "pull") return `while ${pulls} ${l.heldBy.pulls.length === 1 ? "is" : "are"} open`;
  return pulls ? `exempt (and ${pulls} open)` : "exempt";
}

function heading(f: BoardFilters, repo: string | null): string {
  const parts = ["Live leases"];
  if (repo) parts.push(`in ${esc(repo)}`);
  if (f.mine) parts.push("held by you");
  else if (f.holder) parts.push(`held by ${esc(f.holder)}`);
  if (f.label) parts.push(`labelled “${esc(f.label)}”`);
  return parts.join(" ");
}

function filterForm(f: BoardFilters, repo: string | null): string {
  const value = (v: string | undefined) => (v ? ` value="${esc(v)}"` : "");
  return (
    `<form class="filters" method="get" action="/leases">` +
    `<input name="repo" placeholder="owner/repo" aria-label="Repository"${value(repo ?? f.repo)}>` +
    `<input name="holder" placeholder="holder" aria-label="Holder"${value(f.mine ? "@me" : f.holder)}>` +
    `<input name="label" placeholder="label" aria-label="Label"${value(f.label)}>` +
    `<button type="submit">Filter</button> <a class="button" href="/leases">Clear</a></form>`
  );
}

/** How many leases the filters match, and which of them this page shows. */
function countLine(f: BoardFilters, shown: number, total: number): string {
  if (total === 0) return "";
  const leases = `${total} live ${total === 1 ? "lease" : "leases"}`;
  const first = (f.page - 1) * PAGE_SIZE + 1;
  const text = shown === 0 ? `${leases} in all` : first === 1 && shown === total ? leases : `${first}–${first + shown - 1} of ${leases}`;
  return `<p class="muted total">${text}</p>`;
}

function pager(f: BoardFilters, base: string, more: boolean): string {
  if (f.page === 1 && !more) return "";
  const prev = f.page > 1 ? `<a rel="prev" href="${esc(base + filterQuery(f, f.page - 1, base === "/leases"))}">« Previous ${PAGE_SIZE}</a>` : "";
  const next = more ? `<a rel="next" href="${esc(base + filterQuery(f, f.page + 1, base === "/leases"))}">Next ${PAGE_SIZE} »</a>` : "";
  return `<nav class="pages">${prev}<span class="muted">Page ${f.page}</span>${next}</nav>`;
}

function endedLine(e: EndedTenure, ctx: PageContext): string {
  const how = e.how === "expired" ? "expired" : e.how === "released" ? "released" : `ended by ${esc(e.by?.login ?? "someone else")}`;
  return (
    `<li class="ended">${repoName(e.repo)} ${issueLink(ctx.web, e.repo, e.issue, e.title)}: ` +
    `<span class="holder">${esc(e.holder.login)}</span> (token ${e.token}) ${how} ${time(e.at, ctx.now)}</li>`
  );
}

function panels(p: BoardPanels, ctx: PageContext): string {
  const holders = p.holders.length
    ? `<ol>${p.holders
        .map((h) => `<li><a href="/leases?holder=${encodeURIComponent(h.holder.login)}">${esc(h.holder.login)}</a> <span class="muted">${h.leases}</span></li>`)
        .join("")}</ol>`
    : `<p class="muted">Nobody holds a lease.</p>`;
  const count = p.expiringCount >= SOON_COUNT_CAP ? `${SOON_COUNT_CAP}+` : String(p.expiringCount);
  const expiring = p.expiring.length
    ? `<ul>${p.expiring
        .map((l) => `<li>${repoName(l.repo)} ${issueLink(ctx.web, l.repo, l.issue, l.title)}: ${esc(l.holder.login)}, ${time(l.expiresAt!, ctx.now)}</li>`)
        .join("")}</ul>`
    : `<p class="muted">Nothing expires in the next 24 hours.</p>`;
  const ended = p.ended.length ? `<ul>${p.ended.map((e) => endedLine(e, ctx)).join("")}</ul>` : `<p class="muted">No tenure ended in the last 7 days.</p>`;
  return (
    `<section class="holders"><h2>Leases per holder</h2>${holders}</section>` +
    `<section class="expiring"><h2>Expiring in the next 24 hours <span class="muted">(${count})</span></h2>${expiring}</section>` +
    `<section class="ended"><h2>Ended in the last 7 days</h2>${ended}</section>`
  );
}

export function renderBoard(
  ctx: PageContext,
  f: BoardFilters,
  result: { leases: BoardLease[]; more: boolean; total: number; panels: BoardPanels; repo: string | null },
): string {
  const base = result.repo ? `/leases/${result.repo}` : "/leases";
  const rows = result.leases.map((l) => leaseRow(l, ctx)).join("");
  const table = rows
    ? `<div class="table"><table class="leases"><thead><tr><th>Repository</th><th>Issue</th><th>Holder</th><th>Token</th><th>Since</th><th>Expires</th><th>Held</th></tr></thead>` +
      `<tbody>${rows}</tbody></table></div>`
    : `<p class="muted empty">No live leases to show${f.page > 1 ? " on this page" : ""}.</p>`;
  const ready = result.repo ? `<p><a href="/leases/${esc(result.repo)}/ready">Ready: its free issues, in the order agents take them</a></p>` : "";
  const body = `<h1>${heading(f, result.repo)}</h1>${ready}${filterForm(f, result.repo)}${countLine(f, result.leases.length, result.total)}${table}${pager(f, base, result.more)}`;
  return layout(ctx, result.repo ?? "Leases", body, panels(result.panels, ctx));
}

/** A page with one message: not found, a bad filter, a sign-in that failed. */
export function renderMessage(ctx: PageContext, title: string, message: string): string {
  return layout(ctx, title, `<h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/leases">Back to the board</a></p>`);
}
