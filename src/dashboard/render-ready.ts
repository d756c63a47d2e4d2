/**
 * The board's Ready view as HTML: a repository's open issues that match a
 * filter and are free, in the order `leases/next` hands them out, with how
 * many match and how many of those are held. Everything from GitHub goes
 * through `esc`, as on the board.
 */
import type { ReadyIssue, ReadyPage } from "../ledger/inventory/inventory-types.js";
import { esc, issueLink, layout, type PageContext, shownLabels, time } from "./render.js";
import { nextBody, READY_SHOWN, readyQuery, type ReadyView } from "./ready-query.js";

function readyRow(r: ReadyIssue, position: number, ctx: PageContext): string {
  const labels = shownLabels(r.labels)
    .map((name) => `<span class="label">${esc(name)}</span>`)
    .join("");
  const author = r.authorLogin ? `<a href="${esc(`${ctx.web}/${r.authorLogin}`)}">${esc(r.authorLogin)}</a>` : '<span class="muted">unknown</span>';
  const assignees = r.assignees.length ? r.assignees.map(esc).join(", ") : '<span class="muted">nobody</span>';
  return (
    `<tr class="ready" data-issue="${r.issue}">` +
    `<td class="num" data-label="Next">${position}</td>` +
    `<td class="issue" data-label="Issue">${issueLink(ctx.web, r.repo, r.issue, r.title)}${labels ? `<div>${labels}</div>` : ""}</td>` +
    `<td data-label="Author">${author}</td>` +
    `<td data-label="Assigned">${assignees}</td>` +
    `<td class="when" data-label="Opened">${time(r.createdAt, ctx.now)}</td>` +
    `</tr>`
  );
}

function viewForm(view: ReadyView, repo: string): string {
  const field = (name: string, values: string[], placeholder: string) =>
    `<input name="${name}" placeholder="${placeholder}" aria-label="${placeholder}"${values[0] ? ` value="${esc(values[0])}"` : ""}>`;
  // Only the first of a repeated filter has a box; the others ride along as hidden fields.
  const hidden = (name: string, values: string[]) => values.slice(1).map((v) => `<input type="hidden" name="${name}" value="${esc(v)}">`).join("");
  return (
    `<form class="filters" method="get" action="/leases/${esc(repo)}/ready">` +
    field("label", view.labels, "with label") +
    hidden("label", view.labels) +
    field("any_label", view.anyLabels, "or any label") +
    hidden("any_label", view.anyLabels) +
    field("exclude_label", view.excludeLabels, "without label") +
    hidden("exclude_label", view.excludeLabels) +
    field("order", view.order, "first with label") +
    hidden("order", view.order) +
    `<input name="milestone" placeholder="milestone" aria-label="Milestone"${view.milestone ? ` value="${esc(view.milestone)}"` : ""}>` +
    `<button type="submit">Filter</button> <a class="button" href="/leases/${esc(repo)}/ready">Clear</a></form>`
  );
}

function countLine(page: ReadyPage): string {
  const matched = `${page.matched} open ${page.matched === 1 ? "issue matches" : "issues match"}`;
  const free = page.matched - page.held;
  return `<p class="muted total">${matched}: ${page.held} held, ${free} free${page.ready.length < free ? `; the first ${page.ready.length} are shown` : ""}.</p>`;
}

export function renderReady(ctx: PageContext, repo: string, view: ReadyView, page: ReadyPage): string {
  const rows = page.ready.map((r, i) => readyRow(r, i + 1, ctx)).join("");
  const table = rows
    ? `<div class="table"><table class="leases"><thead><tr><th>Next</th><th>Issue</th><th>Author</th><th>Assigned</th><th>Opened</th></tr></thead>` +
      `<tbody>${rows}</tbody></table></div>`
    : `<p class="muted empty">No free issue matches: nothing for the next agent to take.</p>`;
  const call = `POST /api/v1/repos/${repo}/leases/next ${JSON.stringify(nextBody(view))}`;
  const body =
    `<h1>Ready in ${esc(repo)}</h1>` +
    `<p class="muted">Open issues that match and that nobody holds, in the order <code>leases/next</code> hands them out ` +
    `(the first ${READY_SHOWN}). <a href="/leases/${esc(repo)}">Its live leases</a></p>` +
    viewForm(view, repo) +
    countLine(page) +
    table +
    `<p class="muted">The same call for an agent: <code>${esc(call)}</code> <a href="/leases/${esc(repo)}/ready${esc(readyQuery(view))}">(this view)</a></p>`;
  return layout(ctx, `Ready in ${repo}`, body);
}
