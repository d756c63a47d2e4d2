/**
 * The files of a SQLite ledger before SQLite opens them: the ledger, its
 * `.serving` companion and a backup. SQLite creates a missing file but not
 * its folder, so `./data/leases.db` on a fresh clone, or any path in a new
 * folder, would fail to open.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** Makes the folder `file` is to be created in (and the folders above it), when missing. */
export function prepareSqliteFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
}
