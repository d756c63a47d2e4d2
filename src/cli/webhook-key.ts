/**
 * `issue-leases webhook-key owner/name | --installation N`: the key that
 * signs an installation's outgoing webhooks (events/sign.ts), for the
 * operator to give to the maintainers whose receivers verify them.
 */
import { installationKey, keyText } from "../events/sign.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { DATABASE_HELP } from "./database-help.js";
import { findRepo } from "./find-repo.js";
import { parseRepoName } from "./parse-issue-ref.js";

export const WEBHOOK_KEY_HELP = `Usage: issue-leases webhook-key owner/name
       issue-leases webhook-key --installation N

Prints the key that signs the outgoing webhooks (lease events) of one
installation of the app, as whsec_… (the Standard Webhooks form, which its
libraries take as it is). Every repository of an installation (one
organisation or account) has the same key; each installation has its own,
so a receiver that has one installation's key can forge nothing for another.

Give the key to the maintainers whose receivers verify that installation's
deliveries, over a private channel (a password manager, a secret store).
Never give EVENTS_WEBHOOK_SECRET itself: every installation's key follows
from it. The key is derived from EVENTS_WEBHOOK_SECRET (the environment, or
./.env): run this where the app runs, with its settings. A new
EVENTS_WEBHOOK_SECRET changes every key.

  owner/name          a repository the app has seen: its installation's key
                      (reads the database for the installation)
  --installation N    the installation's key, by its id (no database)

Database (owner/name only):
${DATABASE_HELP}`;

type Values = Record<string, string | boolean | undefined>;

/** What to show the key of, checked before the database is opened: a repository, or an installation by id. */
export function webhookKeyTarget(positionals: string[], values: Values): { repo: string } | { installation: number } {
  const [text, ...extra] = positionals;
  if (extra.length > 0) throw usageError(`unexpected argument ${extra[0]}; see \`issue-leases webhook-key --help\``);
  if (values.installation !== undefined) {
    if (text !== undefined) throw usageError("name a repository or --installation, not both; see `issue-leases webhook-key --help`");
    const raw = String(values.installation);
    const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(id)) throw usageError(`--installation takes an installation's id, a whole number such as 12345678, not ${JSON.stringify(raw)}`);
    return { installation: id };
  }
  if (text === undefined) throw usageError("webhook-key needs a repository as owner/name, or --installation N; see `issue-leases webhook-key --help`");
  const repo = parseRepoName(text);
  if (!repo) throw usageError(`not a repository: ${JSON.stringify(text)}; write it as owner/name, e.g. octo-org/octo-repo`);
  return { repo };
}

/** The operator's secret; none set is an error that says where it is read from. */
export function webhookSecret(env: NodeJS.ProcessEnv): string {
  const secret = env.EVENTS_WEBHOOK_SECRET;
  if (!secret) {
    throw new CliError(
      "EVENTS_WEBHOOK_SECRET is not set (in the environment or ./.env): the keys are derived from the app's secret, so run this where the app runs, with its settings",
      EXIT.failure,
    );
  }
  return secret;
}

/** Prints the key of `installation`. */
export function printWebhookKey(secret: string, installation: number, io: CliIo): number {
  io.out(keyText(installationKey(secret, installation)));
  return EXIT.ok;
}

/** The installation of a repository the app has seen (exit 3 when it has not). */
export async function repoInstallation(ledger: RepoMemory, repo: string): Promise<number> {
  return (await findRepo(ledger, repo)).installation;
}
