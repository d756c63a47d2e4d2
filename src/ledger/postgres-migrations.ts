/**
 * PostgreSQL schema, as an ordered list of migrations mirroring
 * `sqlite-migrations.ts` table for table. Each is a function of the quoted
 * schema name, since the ledger's tables live in a schema of their own (one
 * per test, or one per deployment sharing a database). `schema_version`
 * records which have run; each runs in its own transaction together with its
 * version row, so a crash leaves the schema at one version or the next, never
 * between. Append only: never edit a migration that has shipped.
 *
 * Timestamps, tokens and GitHub ids are `bigint` milliseconds / integers, as
 * in SQLite; the pool parses them back to numbers.
 */
export const POSTGRES_MIGRATIONS: readonly ((schema: string) => string)[] = [
  // 1: the lease table (current state of each issue's tenure) and its history.
  (s) => `
  CREATE TABLE ${s}.leases (
    repo_id      bigint  NOT NULL,
    issue        bigint  NOT NULL,
    repo         text    NOT NULL,
    holder_id    bigint,             -- NULL: free
    holder_login text,
    token        bigint  NOT NULL,   -- only ever goes up; 0: a free row locked before the first tenure
    acquired_at  bigint,
    expires_at   bigint,             -- NULL: open-ended
    updated_at   bigint  NOT NULL,
    PRIMARY KEY (repo_id, issue)
  );
  CREATE INDEX leases_by_holder ON ${s}.leases (holder_id, repo_id) WHERE holder_id IS NOT NULL;
  CREATE INDEX leases_by_expiry ON ${s}.leases (expires_at) WHERE holder_id IS NOT NULL AND expires_at IS NOT NULL;

  CREATE TABLE ${s}.history (
    id           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo_id      bigint  NOT NULL,
    repo         text    NOT NULL,
    issue        bigint  NOT NULL,
    op           text    NOT NULL,
    outcome      text    NOT NULL,
    actor_id     bigint,
    actor_login  text,
    holder_id    bigint,
    holder_login text,
    token        bigint,
    expires_at   bigint,
    at           bigint  NOT NULL,
    delivery     text
  );
  CREATE INDEX history_by_issue ON ${s}.history (repo_id, issue, id);
  `,
  // 2: webhook deliveries already applied, so that a redelivery has effects once.
  (s) => `
  CREATE TABLE ${s}.deliveries (
    id     text   PRIMARY KEY,
    result text   NOT NULL,
    at     bigint NOT NULL
  );
  `,
  // 3: reminders (once per term of a tenure) and the outbox of effects on GitHub.
  (s) => `
  ALTER TABLE ${s}.leases ADD COLUMN remind_at bigint;
  ALTER TABLE ${s}.leases ADD COLUMN reminded boolean NOT NULL DEFAULT false;
  CREATE INDEX leases_by_reminder ON ${s}.leases (remind_at) WHERE holder_id IS NOT NULL AND NOT reminded AND remind_at IS NOT NULL;

  CREATE TABLE ${s}.outbox (
    id           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo_id      bigint  NOT NULL,
    issue        bigint  NOT NULL,
    installation bigint  NOT NULL,
    kind         text    NOT NULL,
    payload      text    NOT NULL,   -- JSON text, not jsonb: it round-trips exactly, \\u0000 included
    state        text    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'parked')),
    attempts     integer NOT NULL DEFAULT 0,
    next_at      bigint  NOT NULL,
    locked_until bigint  NOT NULL DEFAULT 0,
    last_error   text,
    created_at   bigint  NOT NULL,
    done_at      bigint
  );
  CREATE INDEX outbox_pending ON ${s}.outbox (repo_id, issue, id) WHERE state = 'pending';
  CREATE INDEX outbox_due ON ${s}.outbox (next_at) WHERE state = 'pending';
  `,
  // 4: what the outbox last applied per issue, and the installation serving each repository.
  (s) => `
  CREATE TABLE ${s}.reflections (
    repo_id    bigint NOT NULL,
    issue      bigint NOT NULL,
    state      text   NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (repo_id, issue)
  );
  CREATE TABLE ${s}.repos (
    repo_id      bigint PRIMARY KEY,
    repo         text   NOT NULL,
    installation bigint NOT NULL,
    updated_at   bigint NOT NULL
  );
  `,
  // 5: named locks with an expiry (one sweeper at a time across replicas).
  (s) => `
  CREATE TABLE ${s}.locks (
    name  text   PRIMARY KEY,
    owner text   NOT NULL,
    until bigint NOT NULL
  );
  `,
  // 6: the outbox serves replies to commands before sweep effects (priority),
  // and counts parked effects without reading every row ever written.
  (s) => `
  ALTER TABLE ${s}.outbox ADD COLUMN priority integer NOT NULL DEFAULT 0;
  DROP INDEX ${s}.outbox_due;
  CREATE INDEX outbox_due ON ${s}.outbox (priority, next_at) WHERE state = 'pending';
  CREATE INDEX outbox_parked ON ${s}.outbox (id) WHERE state = 'parked';
  `,
  // 7: held leases indexed by repository, then holder (SQLite's 8): a
  // repository's live leases are found among its held rows, where the
  // primary key led to every row the repository ever had.
  (s) => `
  DROP INDEX ${s}.leases_by_holder;
  CREATE INDEX leases_held ON ${s}.leases (repo_id, holder_id) WHERE holder_id IS NOT NULL;
  `,
  // 8: a reply's random nonce, and the late mark of an effect un-parked
  // after a newer one of its issue was applied (SQLite's 9).
  (s) => `
  ALTER TABLE ${s}.outbox ADD COLUMN nonce text, ADD COLUMN late boolean NOT NULL DEFAULT false;
  `,
  // 9: replies per person per hour (SQLite's 10): whether a counted
  // command's reply was posted, and an index of the rows whose was.
  (s) => `
  ALTER TABLE ${s}.history ADD COLUMN replied integer;
  CREATE INDEX history_replies ON ${s}.history (repo_id, actor_id, at) WHERE replied > 0;
  `,
  // 10: the token floor (SQLite's 11). A dump knows fewer tokens than GitHub
  // saw (those handed out after it are in labels, replies and pull requests),
  // so after a pg_restore `issue-leases token-floor` records a floor: every
  // new tenure, on any issue, even one the dump never saw, gets a token above
  // it. One row at most; `backup` says what set it.
  (s) => `
  CREATE TABLE ${s}.token_floor (
    id     integer PRIMARY KEY CHECK (id = 1),
    floor  bigint  NOT NULL,
    set_at bigint  NOT NULL,
    backup text    NOT NULL
  );
  `,
  // 11: the holder's instance (SQLite's 12): an API client's short name
  // for one of its workers; NULL for a comment's holder.
  (s) => `
  ALTER TABLE ${s}.leases ADD COLUMN holder_instance text;
  ALTER TABLE ${s}.history ADD COLUMN holder_instance text, ADD COLUMN actor_instance text;
  `,
];
