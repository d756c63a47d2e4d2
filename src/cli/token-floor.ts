/**
 * `issue-leases token-floor`: raises the ledger's token floor, for the
 * operator who restored the database with its own tools (`pg_restore`). The
 * dump knows fewer tokens than GitHub saw: tenures begun after it are in
 * labels, replies and pull requests. With the floor above them, every new
 * tenure, on any issue, gets a token never handed out before. SQLite's
 * `restore` records the floor itself; the command works there too.
 */
import { TokenFloorBelowError } from "../ledger/admin/token-floor-below-error.js";
import type { TokenFloorRaise, LedgerAdmin } from "../ledger/admin/admin-roles.js";
import { EXIT, usageError } from "./cli-error.js";
import { OPERATOR } from "./operator-release.js";
import { DEFAULT_TOKEN_GAP, integerOption } from "./restore.js";
import type { CliIo } from "./cli-io.js";

export const TOKEN_FLOOR_HELP = `Usage: issue-leases token-floor [--gap N | --floor N]

Raises the token floor: the next tenure of every issue, even one the ledger
has never seen, gets a token above it, while live leases keep theirs. Run it
after restoring PostgreSQL from a dump (pg_restore, app stopped), before the
app starts: tokens handed out after the dump are on GitHub, not in the dump,
and are then never handed out again. The floor is never lowered; every
issue's history records the raise.

  --gap N    the floor is the ledger's highest token plus N (default ${DEFAULT_TOKEN_GAP}:
             more tenures than any one issue sees between two dumps)
  --floor N  the floor itself, e.g. the highest token seen on GitHub; at least
             the ledger's highest token

Database:
  --database URL, else $DATABASE_URL (also read from ./.env), else
  ./data/leases.db, as for the other commands.`;

type Values = Record<string, string | boolean | undefined>;

/** The raise the options ask for; a usage error for a malformed one. Checked before the database is opened. */
export function tokenFloorRaise(values: Values): TokenFloorRaise {
  const floor = integerOption("floor", values.floor as string | undefined, 1);
  const gap = integerOption("gap", values.gap as string | undefined, 1);
  if (floor !== null && gap !== null) throw usageError("give --floor or --gap, not both; see `issue-leases token-floor --help`");
  return floor !== null ? { floor } : { gap: gap ?? DEFAULT_TOKEN_GAP };
}

/** The command line that raises the floor, as `restore` prints it for PostgreSQL. */
export function tokenFloorCommand(raise: TokenFloorRaise): string {
  return "floor" in raise ? `issue-leases token-floor --floor ${raise.floor}` : `issue-leases token-floor --gap ${raise.gap}`;
}

export async function runTokenFloor(ledger: LedgerAdmin, raise: TokenFloorRaise, io: CliIo): Promise<number> {
  const setBy = tokenFloorCommand(raise).replace(/^issue-leases /, "");
  let r;
  try {
    r = await ledger.raiseTokenFloor(raise, OPERATOR, setBy, io.clock());
  } catch (err) {
    if (!(err instanceof TokenFloorBelowError)) throw err;
    throw usageError(
      `--floor ${err.floor} is below the ledger's highest token, ${err.highestToken}: give at least that ` +
        "(the highest token seen on GitHub), or --gap N",
    );
  }
  if (!r.raised) {
    io.out(
      `The token floor stays at ${r.floor} (highest token in the ledger ${r.highestToken}): it is never lowered, ` +
        "and the next tenure of every issue already gets a token above it.",
    );
    return EXIT.ok;
  }
  io.out(
    `Token floor ${r.floor} (was ${r.before}; highest token in the ledger ${r.highestToken}): the next tenure of every issue ` +
      `gets a token above it; the history of ${r.issues} issue${r.issues === 1 ? "" : "s"} records the raise.`,
  );
  return EXIT.ok;
}
