/**
 * The ledger's database, from the environment: DATABASE_URL (its kind
 * checked before anything opens it), DATABASE_SCHEMA and DATABASE_POOL_SIZE.
 * The server and the operator's CLI read them alike.
 */
import { DatabaseConfigError } from "../ledger/admin/database-config-error.js";
import { databaseKind, DEFAULT_DATABASE_URL } from "../ledger/open-ledger.js";
import { numberIn } from "./parse-number.js";
import type { Env } from "./setting-row.js";
import { rawValue } from "./settings-table.js";

export interface DatabaseSettings {
  /** A SQLite file path or a postgres:// URL. */
  url: string;
  /** PostgreSQL's schema; undefined: public. */
  schema: string | undefined;
  /** PostgreSQL's pool; undefined: the store's default (10). */
  poolSize: number | undefined;
}

/** Throws DatabaseConfigError (one line, naming the variable) for a scheme the app does not support or a pool size out of bounds. */
export function databaseSettings(env: Env): DatabaseSettings {
  const url = rawValue(env, "DATABASE_URL") || DEFAULT_DATABASE_URL;
  databaseKind(url);
  return { url, ...databaseOptions(env) };
}

/** DATABASE_SCHEMA and DATABASE_POOL_SIZE, for a database named elsewhere too (the CLI's `--database`). */
export function databaseOptions(env: Env): Omit<DatabaseSettings, "url"> {
  return { schema: rawValue(env, "DATABASE_SCHEMA") || undefined, poolSize: poolSizeFrom(rawValue(env, "DATABASE_POOL_SIZE")) };
}

/**
 * `DATABASE_POOL_SIZE`: the most connections one process's PostgreSQL pool
 * opens (default 10). Each process also holds two of its own (the events'
 * LISTEN and the session locks), so N replicas take up to N × (size + 2) of
 * the server's `max_connections`.
 */
export function poolSizeFrom(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = numberIn(value, { whole: true, min: 1, max: 1000 });
  if (n === null) {
    throw new DatabaseConfigError(`DATABASE_POOL_SIZE is ${JSON.stringify(value)}: set it to a whole number of connections from 1 to 1000 (default 10)`);
  }
  return n;
}
