import type { SchemaVersion } from "./admin-roles.js";

/**
 * The database's schema is older than this issue-leases's, and the caller
 * asked not to migrate it: a tool run beside an older app must not change
 * the schema under it (the older app's statements may need what a migration
 * drops). Starting the app migrates.
 */
export class SchemaBehindError extends Error {
  constructor(readonly version: SchemaVersion) {
    super(`its schema is at version ${version.current} of ${version.latest}`);
    this.name = "SchemaBehindError";
  }
}
