/** The help texts of `issue-leases agent …`. */
import { EXIT_CODES_HELP } from "./agent-exit.js";
import { RUN_EVENTS } from "./agent-run.js";

/** run's --json events, one line each, from the list run prints them by. */
const RUN_EVENTS_HELP = Object.entries(RUN_EVENTS)
  .map(([event, meaning]) => `                       ${event.padEnd(15)} ${meaning}`)
  .join("\n");

const CONNECTION = `Connection (environment):
  ISSUE_LEASES_URL   the app's URL, e.g. https://leases.example.com (or --url URL);
                     http:// only to this machine, unless ISSUE_LEASES_ALLOW_HTTP=1
  GH_TOKEN, GITHUB_TOKEN  a GitHub token: a user's, a personal access token or an
                     installation token (GH_TOKEN first, as gh reads them). It is sent
                     to the app only, which asks GitHub who it is and never stores it.
These commands talk to the app's HTTP API; they never read .env nor a database.`;

const COMMON = `  --url URL          the app's URL, instead of $ISSUE_LEASES_URL
  --json             print the API's answer as JSON (also for 409 answers)
  -h, --help         this help`;

/** The client commands, as the operator CLI's help lists them. */
export const AGENT_SUMMARY = `Client commands (for bots and agents: the app's API, with $ISSUE_LEASES_URL and $GITHUB_TOKEN or $GH_TOKEN):
  agent claim|renew|release|status|verify|mine owner/repo#N   your own leases; see \`issue-leases agent --help\`
  agent run owner/repo#N --ttl 30m -- COMMAND                 hold a lease while COMMAND runs
  agent next owner/repo --label L -- COMMAND {issue}          the same on the next ready issue`;

export const AGENT_HELP = `Usage: issue-leases agent <command> owner/repo#N [options]
       issue-leases agent next owner/repo [filters] [options] [-- COMMAND {issue}…]

Leases for bots and shell agents, through the app's API: the same leases,
rules and fencing tokens as /claim comments, shown on GitHub the same way
(a renewal, the heartbeat, posts nothing).

Commands:
  claim owner/repo#N [--ttl 30m] [--instance NAME]    take the lease (or extend your own)
        [--wait] [--wait-timeout 1h]                  or wait in line while someone holds it
  renew owner/repo#N [--ttl 30m] [--instance NAME]    extend your live lease (the heartbeat)
  release owner/repo#N [--instance NAME]              end your lease
  status owner/repo#N                                 the live lease and the recent tenures
  verify [owner/repo#N] [--token N] [--instance NAME] is N the live token, and yours?
  mine                                                your live leases
  run owner/repo#N [--ttl 30m] [--instance NAME] [--grace 10s] -- COMMAND [ARGS…]
                                                      hold the lease while COMMAND runs
  next owner/repo [--label L]… [--any-label L]… [--exclude-label L]… [--milestone M]
       [--order L]… [--ttl 30m] [--instance NAME] [-- COMMAND {issue}…]
                                                      take the next ready issue (and run
                                                      COMMAND on it, as run does)

Options (each command):
${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}

\`issue-leases agent <command> --help\` for a command's options.`;

const COMMAND_ENV = `  ISSUE_LEASES_TOKEN     the fencing token (put it in a pull request as Lease-Token: N)
  ISSUE_LEASES_REF       owner/repo#N
  ISSUE_LEASES_ISSUE     N, the issue's number
  ISSUE_LEASES_INSTANCE  the instance, when given`;

const TTL = `  --ttl DURATION     how long the lease lasts: 30s, 45m, 2h, 3d, 2w (default: the
                     repository's default_ttl, within its min_ttl and max_ttl)
  --instance NAME    this worker's name: instances of one account are different holders`;

export const AGENT_COMMAND_HELP: Record<string, string> = {
  claim: `Usage: issue-leases agent claim owner/repo#N [--ttl DURATION] [--instance NAME] [--wait] [--wait-timeout DURATION] [--json]

Takes the issue's lease: prints the fencing token and the expiry. Claiming
what you hold already extends it (same token). Exit 75 when someone else
holds it (the holder, token and expiry on stderr, or the answer with --json).

With --wait, a held issue puts you in its line instead: the app hands the
lease to the first in line when it is released or expires. claim tells
your place on stderr ("2nd in line"; with --json a line {"event": "queued",
"issue", "position", "queued_until", "lease"}), polls until the lease is
yours, keeps the place by asking again before it ends, and then prints the
lease as a claim does. Past --wait-timeout it leaves the line and exits
75; SIGINT, SIGTERM or SIGHUP leave the line and exit 128+N.

${TTL}
  --wait             wait in line while someone else holds the issue
  --wait-timeout DURATION
                     give up after this long: 10m, 1h, 1d (implies --wait;
                     default: wait until stopped)
${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  renew: `Usage: issue-leases agent renew owner/repo#N [--ttl DURATION] [--instance NAME] [--json]

Extends your live lease from now; the token stays. Exit 76 when you do not
hold it (any more): someone released it, it expired, or the issue closed.

${TTL}
${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  release: `Usage: issue-leases agent release owner/repo#N [--instance NAME] [--json]

Ends your lease. Releasing when you hold nothing succeeds (exit 0). Exit 76
when someone else holds it. (To end anyone's lease from the database, an
operator runs \`issue-leases force-release\`.)

  --instance NAME    the instance the lease was claimed with
${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  status: `Usage: issue-leases agent status owner/repo#N [--json]

The issue's live lease (holder, token, expiry), or that it is free, and its
recent tenures.

${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  verify: `Usage: issue-leases agent verify [owner/repo#N] [--token N] [--instance NAME] [--json]

Asks the app whether N is the issue's live token, held by you: run it right
before a side effect only the holder may make (a push, a merge):

  issue-leases agent verify octo-org/widgets#12 --token 7 && git push

Exit 0 when it is; 76 when it is not (who holds it now goes to stderr).
Under \`agent run\` the issue, the token and the instance default to the
run's ($ISSUE_LEASES_REF, $ISSUE_LEASES_TOKEN, $ISSUE_LEASES_INSTANCE), so
\`issue-leases agent verify && git push\` is enough there.

  --token N          the fencing token you hold
  --instance NAME    the instance the lease was claimed with
${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  mine: `Usage: issue-leases agent mine [--json]

Your live leases (the token's account, every instance), in every repository
the app serves.

${COMMON}

${CONNECTION}

${EXIT_CODES_HELP}`,
  run: `Usage: issue-leases agent run owner/repo#N [--ttl DURATION] [--instance NAME] [--grace DURATION] [--no-watch] -- COMMAND [ARGS…]

Claims the issue, runs COMMAND with the lease held, and releases it when
COMMAND exits; exits with COMMAND's status. While it runs, the lease is
renewed every third of the TTL (posting nothing on GitHub). If the lease is
lost (a maintainer's /release @you, an operator's force-release, the issue
closed, or renewals failing until it expired), COMMAND is stopped: SIGTERM
to its process group, then SIGKILL after the grace period, and run exits 76.
Exit 75, without running COMMAND, when someone else holds the issue.

run listens to the app's event stream for the lease's end, so that COMMAND
is stopped within a second of it; when the stream is down (or the app has
none), the renewals notice, up to a third of the TTL later, and the stream
is tried again. ISSUE_LEASES_DEBUG=1 prints the stream's ups and downs
(with --json, as {"debug", "issue"} lines).

COMMAND gets stdin, stdout and stderr, and the environment, plus:
${COMMAND_ENV}
It runs in a process group of its own, so that stopping it stops what it
started. SIGINT, SIGTERM and SIGHUP sent to run are passed on to it (a
second one kills it at once); the lease is released once it has exited.

${TTL}
  --grace DURATION   how long COMMAND has to exit after SIGTERM (default 10s)
  --no-watch         renewals alone: do not listen to the app's event stream
  --json             print what happens as JSON lines on stderr, {"event", "issue", …}:
${RUN_EVENTS_HELP}
  --url URL          the app's URL, instead of $ISSUE_LEASES_URL
  -h, --help         this help

${CONNECTION}

${EXIT_CODES_HELP}`,
  next: `Usage: issue-leases agent next owner/repo [FILTERS] [--ttl DURATION] [--instance NAME] [--grace DURATION] [--no-watch] [-- COMMAND [ARGS…]]
       issue-leases agent next --org OWNER [FILTERS] …

Takes the next ready issue of the repository (with --org, of every
repository of OWNER the app serves), in one call: the first open issue
that matches the filters, is free, has nobody waiting for it, is
unassigned or assigned to you, has no open pull request closing it and is
not blocked by an open issue; oldest first, or as --order says. Twenty
agents asking at once get twenty different issues.

Without COMMAND it prints the lease as claim does, and you hold it (renew
and release it yourself). With COMMAND it works as \`agent run\` on that
issue: {issue} in COMMAND's arguments is replaced by its number, COMMAND
runs with the lease held and renewed, is stopped if the lease is lost, and
the lease is released when COMMAND exits; next exits with its status.

  issue-leases agent next octo-org/widgets --label bug --ttl 2h -- ./agent.sh {issue}

Exit 66, running nothing, when no issue is ready; stderr says how many
open issues match the filters and how many of them are held (with --json,
the API's answer on stdout: {"error", "matched", "held"}).

COMMAND gets stdin, stdout and stderr, and the environment, plus:
${COMMAND_ENV}

Filters (each label option may be repeated; label names ignore case):
  --label L          only issues with label L (every --label given)
  --any-label L      only issues with at least one of these labels
  --exclude-label L  no issue with label L
  --milestone M      only issues in milestone M (its title)
  --order L          issues labelled L first, in the order given, then the rest
  --org OWNER        every repository of OWNER the app serves, instead of owner/repo

${TTL}
  --grace DURATION   with COMMAND: how long it has to exit after SIGTERM (default 10s)
  --no-watch         with COMMAND: renewals alone, as run --no-watch
  --json             print the API's answer (without COMMAND), or what happens as
                     JSON lines on stderr, as run --json does (with COMMAND)
  --url URL          the app's URL, instead of $ISSUE_LEASES_URL
  -h, --help         this help

${CONNECTION}

${EXIT_CODES_HELP}`,
};
