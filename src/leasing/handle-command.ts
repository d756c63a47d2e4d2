/**
 * One command, start to commit: parse, check what GitHub must be asked
 * (config, permission), then ONE ledger transaction that decides the outcome,
 * records the delivery and writes the reply and label effects to the outbox.
 * Applying them to GitHub is the drainer's job; nothing here posts.
 */
import { type Command, type CommandWords, isParseError, mayNeedWords, type ParseError, parseCommand } from "../commands/parse-command.js";
import { aliasMap } from "../config/commands-field.js";
import type { ConfigResult } from "../config/config.js";
import type { Config } from "../config/schema.js";
import { helpView } from "./help.js";
import { LeaseCommand } from "./lease-command.js";
import { applyDecision, commandOptions, releasedHandoff, replyEffect } from "./lease-decision.js";
import type { LeaseResult } from "./lease-result.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import { tenureEnd, unexpired } from "../ledger/leases/tenure-rules.js";
import { isWriter, type Permission } from "../github/github-port.js";
import type { LeaseView, Op, Outcome, Reply, TenureView } from "../commands/reply.js";
import type { Account } from "./policies.js";

/** A comment, reduced to what a command needs. */
export interface CommentEvent {
  delivery: string;
  installation: number;
  repo: { id: number; owner: string; name: string };
  /** `state` as the webhook saw it: "open" or "closed"; `createdAt` (ms) and `authorId`: when and by whom it was opened. */
  issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number };
  author: { id: number; login: string; type: string; association: string };
  body: string;
  /** The comment's id: the reply's marker names it. */
  commentId?: number;
  /** For an edit: the body before it. */
  previousBody?: string | null;
}

export interface CommandDeps {
  ledger: LeaseBook & LeaseReads;
  now: number;
  /** The repository's config, loaded only when the comment holds a command. */
  config: () => Promise<ConfigResult>;
  /** The commenter's permission on the repository (asked of GitHub only for acts on someone else's lease). */
  permission: (login: string) => Promise<Permission>;
  /** An account by login, asked of GitHub (for `/claim @user`); null when there is none. */
  account?: (login: string) => Promise<Account | null>;
  /** The app's slug, for the mention form (`@slug claim`), asked only where the config turns it on; null when unknown. */
  appSlug?: () => Promise<string | null>;
}

export interface Handled {
  op: Op;
  outcome: Outcome;
  duplicate: boolean;
}

/** Whether an edit added the command (or changed it): an edit elsewhere in a comment does not run it again. */
function editAddedCommand(now: Command | ParseError, previousBody: string | null | undefined, words?: CommandWords): boolean {
  if (previousBody === undefined) return true;
  const before = parseCommand(previousBody ?? "", words);
  return before === null || before.line.toLowerCase() !== now.line.toLowerCase();
}

function opOf(kind: Command["kind"] | ParseError["command"]): Op {
  return kind === "lease" ? "status" : kind;
}

/**
 * The comment's command and the repository's config. The config is read
 * first only when the body may hold a word of the repository's own (an
 * alias, the mention form): a comment with neither costs no config read.
 */
async function readCommand(
  ev: CommentEvent,
  deps: CommandDeps,
): Promise<{ parsed: Command | ParseError; config: ConfigResult; words: CommandWords } | null> {
  let config: ConfigResult | null = null;
  let words: CommandWords = {};
  if (mayNeedWords(ev.body)) {
    config = await deps.config();
    if (config.ok) words = await wordsOf(config.config, deps.appSlug);
  }
  const parsed = parseCommand(ev.body, words);
  if (parsed === null || !editAddedCommand(parsed, ev.previousBody, words)) return null;
  return { parsed, config: config ?? (await deps.config()), words };
}

/** A repository's words for the parser: its aliases, and the app's slug where mentions are read. */
export async function wordsOf(config: Config, appSlug?: () => Promise<string | null>): Promise<CommandWords> {
  const words: CommandWords = config.aliases.length > 0 ? { aliases: aliasMap(config.aliases) } : {};
  const slug = config.mentions && appSlug ? await appSlug() : null;
  return slug ? { ...words, mention: slug.toLowerCase() } : words;
}

/** Runs the comment's command, if it has one. Returns null when there is nothing to do. */
export async function handleComment(ev: CommentEvent, deps: CommandDeps): Promise<Handled | null> {
  const read = await readCommand(ev, deps);
  if (read === null) return null;
  const { parsed, config: configResult, words } = read;

  const { ledger, now } = deps;
  const op = opOf(isParseError(parsed) ? parsed.command : parsed.kind);
  const reply = (outcome: Outcome, lease: LeaseView | null, extra: Partial<Reply> = {}): Reply => ({
    op,
    outcome,
    issue: ev.issue.number,
    at: now,
    command: parsed.line,
    actor: ev.author.login,
    lease,
    ignored: parsed.ignored,
    ...(ev.commentId !== undefined ? { comment: ev.commentId } : {}),
    ...extra,
  });
  const command = new LeaseCommand(
    {
      delivery: ev.delivery,
      installation: ev.installation,
      repo: ev.repo,
      issue: ev.issue,
      actor: { id: ev.author.id, login: ev.author.login, type: ev.author.type, association: ev.author.association },
      reply,
    },
    configResult,
    { ledger, now, permission: deps.permission, ...(deps.account ? { account: deps.account } : {}) },
  );
  const done = (r: LeaseResult | { outcome: Outcome; duplicate: boolean }): Handled => ({ op, outcome: r.outcome, duplicate: r.duplicate });

  const broken = command.configRefusal();
  if (broken) return done(await broken);
  if (isParseError(parsed)) return done(await command.refuse("invalid", "syntax", parsed.message));

  switch (parsed.kind) {
    case "claim":
      return done(await command.claim(parsed.ttl, parsed.target));
    case "renew":
      return done(await command.renew(parsed.ttl));
    case "release": {
      const self = parsed.target === null || parsed.target.toLowerCase() === ev.author.login.toLowerCase();
      if (self) return done(await command.release());
      // Acting on someone else's lease: ask GitHub, never trust the payload.
      const permission = await deps.permission(ev.author.login);
      if (!isWriter(permission)) return done(await command.refuse("forbidden", "permission", RELEASE_OTHERS_FORBIDDEN));
      const config = okConfig(configResult);
      const released = replyEffect(command.deciding, reply("released", null, { mentionHolder: true }), true, config);
      const effects = { "released.handoff": releasedHandoff(command.deciding, config), released, "released.nothing": released, any: replyEffect(command.deciding, reply("not_holder", null), false) };
      const actor = { id: ev.author.id, login: ev.author.login };
      const applied = await applyDecision(ledger, command.key, now, { op: "forceRelease", actor, opts: { ifHolder: parsed.target ?? undefined, ...commandOptions(command.deciding, effects) } });
      // No tenure guard is passed, so `stale` cannot come back: a refusal, as not_holder.
      return done({ outcome: applied.outcome === "released" ? "released" : "not_holder", duplicate: applied.duplicate });
    }
    case "help":
      return done({ outcome: "help", duplicate: (await command.note("help", { help: helpView(okConfig(configResult), words.mention) })).duplicate });
    case "lease": {
      const [history, line] = await Promise.all([ledger.history(command.key, 200), ledger.queue(command.key, now)]);
      const tenures = tenuresOf(history, now).slice(-5);
      const queue = line.map((p) => ({ holder: p.holder.login, position: p.position, ...(p.holder.instance !== undefined ? { instance: p.holder.instance } : {}) }));
      return done({ outcome: "status", duplicate: (await command.note("status", { tenures, ...(queue.length > 0 ? { queue } : {}) })).duplicate });
    }
  }
}

/** The config of a command past `configRefusal()`, which answers every command while the config is broken. */
function okConfig(result: ConfigResult): Config {
  return (result as Extract<ConfigResult, { ok: true }>).config;
}

/** The refusal of `/release @user` to someone without write, maintain or admin permission. */
export const RELEASE_OTHERS_FORBIDDEN =
  "Only people with write, maintain or admin permission on this repository can release someone else's lease. Use `/release` on its own to end your own.";

/** Tenures from an issue's history: each new tenure, and how it ended. */
export function tenuresOf(history: Awaited<ReturnType<LeaseReads["history"]>>, now: number): TenureView[] {
  const tenures: TenureView[] = [];
  for (const h of history) {
    const last = tenures[tenures.length - 1];
    if (h.outcome === "acquired" && h.holder && h.token !== null && (!last || last.token !== h.token)) {
      if (last && last.ended === "live") {
        last.ended = "expired";
        last.to = last.to ?? h.at;
      }
      const view: TenureView = { holder: h.holder.login, holderId: h.holder.id, token: h.token, from: h.at, to: h.expiresAt, ended: "live" };
      if (h.holder.instance !== undefined) view.instance = h.holder.instance;
      tenures.push(view);
    } else if (last && last.token === h.token && last.ended === "live") {
      // A `follow` row (a pull request or exempt label holds it or let it go, or activity renewed it) moves its end too.
      const end = tenureEnd({ op: h.op, outcome: h.outcome, holderId: h.holder?.id ?? null });
      if (h.outcome === "renewed" || (h.outcome === "acquired" && h.op === "acquire") || h.op === "follow") last.to = h.expiresAt;
      else if (end === "released") {
        last.ended = h.op === "force_release" ? `released by ${h.actor?.login ?? "a maintainer"}` : "released";
        last.to = h.at;
      } else if (end === "expired") {
        last.ended = "expired";
      }
    }
  }
  for (const t of tenures) if (t.ended === "live" && !unexpired(t.to, now)) t.ended = "expired";
  return tenures;
}
