/**
 * A migration is applied history: a database that ran it never runs it again,
 * so an edit to one would leave databases that ran the old text and databases
 * that run the new one with different schemas under the same version. Each
 * shipped migration's text is pinned here by its hash (SHA-256, first 16 hex
 * digits; PostgreSQL's rendered for the schema `schema`). A new migration is
 * appended to the list and its hash added; an old one is never changed.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../../src/ledger/postgres/migrations.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";

const SHIPPED = {
  sqlite: [
    "e30f12762e53d556", "5bae35aff0084130", "44d40847f1f393be", "475a02a395617455", "dafe9cdbf3434708",
    "46ce44dda95bf6b8", "18f55549471316a3", "4e128e4824cd58e0", "e5a67d61f54ae0b3", "9c88fb0e1c4b6a29",
    "5ca65a1c7385fb02", "7fbe93ad9a773513", "7b399d62e01d342b", "04e1342d69488edf", "54407c014e2ccaca",
    "72b36da5e45a6022", "37883de5087a422c", "b2e44dc12ca4ab0b", "e9e012cfe22e81d7", "393ed5da830ee022",
  ],
  postgres: [
    "db4e5dce90e26eab", "a9c7533e04346792", "5814e17c68525830", "833c7fe1d6fe9b3a", "0e0dc5db5ca24098",
    "2d698c444cb41c72", "90ce39d612def5e6", "c0933b0584479922", "aebf40f8c1ee6986", "af664c3fdc4dbfce",
    "42dd5ca73cf12b72", "997341298a4fe64d", "c924aad6cb7b4bfd", "a7c0c4c81af579cf", "d13c34ea2b1c2b31",
    "2abed91790de6358", "80ddafcbd2c7e6e4", "b3038da544e6b4e2", "9b538a31d3ed31ae", "0bd5080c93ddad1e",
  ],
};

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

describe("shipped migrations", () => {
  it.each([
    ["sqlite", SQLITE_MIGRATIONS.map(hash), SHIPPED.sqlite],
    ["postgres", POSTGRES_MIGRATIONS.map((m) => hash(m("schema"))), SHIPPED.postgres],
  ])("on %s, every migration shipped is there, in its place, byte for byte as it shipped", (_, now, shipped) => {
    expect(now.slice(0, shipped.length)).toEqual(shipped);
  });
});
