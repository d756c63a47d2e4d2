/** The --database option, as each operator command's help describes it. */
import { DEFAULT_DATABASE_URL } from "../ledger/open-ledger.js";

export const DATABASE_HELP = `  --database URL  the ledger to open; default: $DATABASE_URL (./.env's first), else ${DEFAULT_DATABASE_URL}.
                  postgres://… opens PostgreSQL (tables in schema $DATABASE_SCHEMA, default
                  public); anything else is a SQLite file, which must exist. The CLI
                  never changes the schema: a database the app has not migrated to
                  this version yet is refused (start or restart the app first).`;
