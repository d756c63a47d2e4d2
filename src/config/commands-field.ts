/**
 * `commands:`, a repository's aliases: extra words that people already type
 * for the four commands (`take: claim`, `assign-me: claim`, `unassign-me:
 * release`, `abandon: release`). Each key is the word, with or without its
 * slash; each value the command it stands for.
 *
 * Refused, with the reason: a word that is not one (`take it`), a word that
 * would shadow a command (`release: claim`) or another alias (`Take` and
 * `take`), and a word that ordinary prose puts on a line of its own, so that
 * a comment meant as conversation would become a command: the common short
 * replies (`thanks`, `done`, `ok`, `me`), the tone tags written with a slash
 * (`/s`, `/j`) and the slash commands of GitHub's own comment box
 * (`/table`, `/details`).
 */
import { z } from "zod";
import { ALIAS_TARGETS, type AliasTarget, COMMAND_NAMES, WORD } from "../commands/command-words.js";
import { describeKind, echo } from "./echo.js";

// More aliases than this is a pasted list, not a habit.
const ALIASES_MAX = 20;

/** Words people write alone on a line, or after a slash, in conversation. */
const PROSE = new Set([
  // Short replies and acknowledgements.
  ..."a an and or the i me my mine you we us it this that metoo same yes no yep yup nope ok okay k sure thanks thank thx ty".split(" "),
  ..."thankyou cheers done fixed great good nice cool awesome agreed agree lgtm ptal bump ping up hi hello hey please pls plz sorry oops".split(" "),
  ..."wip todo fyi cc edit update updated test nit tldr".split(" "),
  // Tone tags, written after a slash in prose: "that went well /s".
  ..."s j hj srs lh gen nm pos neg t".split(" "),
  // The slash commands of GitHub's comment box.
  ..."code details saved-replies table tasklist template".split(" "),
]);

export interface Alias {
  /** Lower case, without the slash. */
  word: string;
  command: AliasTarget;
}

export function commandsSchema() {
  const example = "`take: claim`";
  return z
    .record(
      z.string(),
      z.enum(ALIAS_TARGETS as [AliasTarget, ...AliasTarget[]], {
        error: (issue) => `must be one of ${ALIAS_TARGETS.map((c) => `\`${c}\``).join(", ")}; ${echo(issue.input)} is not a command.`,
      }),
      { error: (issue) => `must be a mapping of words to commands, such as ${example}; it is ${describeKind(issue.input)}.` },
    )
    .superRefine((aliases, ctx) => {
      const keys = Object.keys(aliases);
      if (keys.length > ALIASES_MAX) {
        ctx.addIssue({ code: "custom", input: aliases, message: `lists ${keys.length} aliases; at most ${ALIASES_MAX} are allowed.` });
        return;
      }
      const seen = new Map<string, string>();
      for (const key of keys) {
        const word = normalise(key);
        const problem = aliasProblem(word, seen.get(word));
        if (problem !== null) ctx.addIssue({ code: "custom", path: [key], input: key, message: problem });
        seen.set(word, key);
      }
    })
    .transform((aliases): Alias[] => Object.entries(aliases).map(([key, command]) => ({ word: normalise(key), command })));
}

function normalise(key: string): string {
  return key.trim().replace(/^\//, "").toLowerCase();
}

/** What is wrong with an alias (lower case, without its slash), or null; `twin`: the key already listed with the same word. */
function aliasProblem(word: string, twin: string | undefined): string | null {
  if (!WORD.test(word)) {
    return "is not a word people can type as a command: use letters, digits and single hyphens, starting with a letter, at most 30 characters (`take` or `/take`).";
  }
  if ((COMMAND_NAMES as readonly string[]).includes(word)) {
    return `would shadow the app's own \`/${word}\`; choose another word.`;
  }
  if (twin !== undefined) return "names a word already listed (words ignore case and the slash).";
  if (PROSE.has(word)) {
    return `\`/${word}\` is written in ordinary comments (a reply on its own line, a tone tag or GitHub's own slash command), so conversation would run it; choose a word nobody writes by chance.`;
  }
  return null;
}

/** The aliases as the parser takes them. */
export function aliasMap(aliases: readonly Alias[]): ReadonlyMap<string, AliasTarget> {
  return new Map(aliases.map((a) => [a.word, a.command]));
}
