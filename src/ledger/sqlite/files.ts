/**
 * The files of a SQLite ledger before SQLite opens them: the ledger, its
 * `.serving` companion, backups and restores. SQLite creates a missing file
 * but not its folder, so `./data/leases.db` on a fresh clone, or any path in
 * a new folder, would fail to open. And it creates files readable by
 * everyone (0644 under the usual umask), while a ledger holds who works on
 * what, private repositories' names and the replies waiting to be posted:
 * so the file is made first, readable by its owner only. SQLite gives the
 * `-wal`, `-shm` and `-journal` files it adds later the mode of the database
 * file. Files that exist already keep their mode: the operator may have
 * chosen it (a backup group, say).
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/** Makes the folder `file` is to be created in (and the folders above it, owner only), when missing. */
export function makeFolderFor(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
}

/** Creates `file` empty, readable and writable by its owner only, unless it exists (then it is left as it is). */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/** Both, for a SQLite file about to be opened or written. */
export function prepareSqliteFile(file: string): void {
  makeFolderFor(file);
  createPrivateFile(file);
}
