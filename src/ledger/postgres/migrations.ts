/**
 * PostgreSQL schema, as an ordered list of migrations mirroring
 * `sqlite/migrations.ts` table for table. Each is a function of the quoted
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
  // 11: claim policies (issue 11; SQLite's 12): each issue's labels as its
  // latest claim saw them, with the token of the latest tenure that carried
  // each, and repositories by installation.
  (s) => `
  CREATE TABLE ${s}.lease_labels (
    repo_id bigint NOT NULL,
    issue   bigint NOT NULL,
    label   text   NOT NULL,
    token   bigint NOT NULL,
    PRIMARY KEY (repo_id, issue, label)
  );
  CREATE INDEX repos_by_installation ON ${s}.repos (installation);
  `,
  // 12: leases that follow the work (SQLite's 13): pull_links, and the lease row's
  // pulls, exempt and term_ms. While pulls or exempt hold a lease its
  // expires_at and remind_at are NULL, which leaves it out of
  // leases_by_expiry and leases_by_reminder, the sweeps' indexes.
  (s) => `
  CREATE TABLE ${s}.pull_links (
    repo_id   bigint NOT NULL,
    pull      bigint NOT NULL,
    issue     bigint NOT NULL,
    author_id bigint NOT NULL,
    PRIMARY KEY (repo_id, pull, issue)
  );
  CREATE INDEX pull_links_by_issue ON ${s}.pull_links (repo_id, issue, author_id);
  ALTER TABLE ${s}.leases ADD COLUMN pulls text, ADD COLUMN exempt boolean NOT NULL DEFAULT false, ADD COLUMN term_ms bigint;
  `,
  // 13: the holder's instance (SQLite's 14): an API client's short name
  // for one of its workers; NULL for a comment's holder.
  (s) => `
  ALTER TABLE ${s}.leases ADD COLUMN holder_instance text;
  ALTER TABLE ${s}.history ADD COLUMN holder_instance text, ADD COLUMN actor_instance text;
  `,
  // 14: the board (issue 12; SQLite's 15): each repository's private flag
  // and each leased issue's title and labels, remembered from webhooks; the
  // indexes a page of live leases is read through; and per-holder counts
  // kept by a trigger in each lease write's own transaction (scope 0: public
  // repositories; a private or unknown one's id). Labels are kept
  // lower-cased in issue_labels, for a filter that ignores case.
  (s) => `
  ALTER TABLE ${s}.repos ADD COLUMN private boolean;
  CREATE TABLE ${s}.issue_cards (
    repo_id    bigint NOT NULL,
    issue      bigint NOT NULL,
    title      text   NOT NULL,
    labels     text   NOT NULL,  -- JSON array of names, as GitHub ordered them
    updated_at bigint NOT NULL,
    PRIMARY KEY (repo_id, issue)
  );
  CREATE TABLE ${s}.issue_labels (
    repo_id bigint NOT NULL,
    issue   bigint NOT NULL,
    label   text   NOT NULL,
    PRIMARY KEY (repo_id, issue, label)
  );
  CREATE INDEX issue_labels_by_label ON ${s}.issue_labels (label);
  CREATE INDEX leases_board ON ${s}.leases ((coalesce(expires_at, 253402300799999)), repo_id, issue) WHERE holder_id IS NOT NULL;
  CREATE INDEX leases_board_holder ON ${s}.leases (lower(holder_login)) WHERE holder_id IS NOT NULL;
  CREATE INDEX history_ended ON ${s}.history (at)
    WHERE (op IN ('release', 'force_release') AND outcome = 'released' AND holder_id IS NOT NULL) OR (op = 'expire' AND outcome = 'expired');
  CREATE TABLE ${s}.holder_counts (
    scope     bigint  NOT NULL,
    holder_id bigint  NOT NULL,
    login     text    NOT NULL,
    n         integer NOT NULL,
    PRIMARY KEY (scope, holder_id)
  );
  CREATE INDEX holder_counts_top ON ${s}.holder_counts (scope, n DESC, holder_id);
  CREATE FUNCTION ${s}.board_scope(of_repo bigint) RETURNS bigint LANGUAGE sql VOLATILE AS $fn$
    SELECT coalesce((SELECT 0::bigint FROM ${s}.repos WHERE repo_id = of_repo AND private = false), of_repo)
  $fn$;
  CREATE FUNCTION ${s}.count_holders() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    scope_of bigint;
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.holder_id IS NOT DISTINCT FROM NEW.holder_id THEN
      IF NEW.holder_id IS NOT NULL AND OLD.holder_login IS DISTINCT FROM NEW.holder_login THEN
        UPDATE ${s}.holder_counts SET login = NEW.holder_login WHERE holder_id = NEW.holder_id;
      END IF;
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.holder_id IS NOT NULL THEN
      scope_of := ${s}.board_scope(OLD.repo_id);
      UPDATE ${s}.holder_counts SET n = n - 1 WHERE scope = scope_of AND holder_id = OLD.holder_id;
    END IF;
    IF NEW.holder_id IS NOT NULL THEN
      INSERT INTO ${s}.holder_counts AS c (scope, holder_id, login, n) VALUES (${s}.board_scope(NEW.repo_id), NEW.holder_id, NEW.holder_login, 1)
        ON CONFLICT (scope, holder_id) DO UPDATE SET n = c.n + 1, login = EXCLUDED.login;
    END IF;
    RETURN NULL;
  END
  $fn$;
  CREATE TRIGGER count_holders AFTER INSERT OR UPDATE OF holder_id, holder_login ON ${s}.leases
    FOR EACH ROW EXECUTE FUNCTION ${s}.count_holders();
  INSERT INTO ${s}.holder_counts (scope, holder_id, login, n)
    SELECT repo_id, holder_id, max(holder_login), count(*) FROM ${s}.leases WHERE holder_id IS NOT NULL GROUP BY repo_id, holder_id;
  `,
  // 15: a repository's private flag with the time of the payload that set
  // it, and tombstones of deleted or transferred issues' cards (SQLite's 16).
  (s) => `
  ALTER TABLE ${s}.repos ADD COLUMN visibility_at bigint;
  ALTER TABLE ${s}.issue_cards ADD COLUMN gone_at bigint;
  `,
  // 16: SQLite's 6, which PostgreSQL never had; from here on the two lists
  // are one design and share their numbers. An issue's history is found from
  // its latest row, each row naming the one before it (prev), instead of
  // through history_by_issue: appending to the history then writes the
  // table's last page and the lease row, which the operation mostly writes
  // anyway, and no index entry. The lease row names the latest row
  // (last_history); an issue with history but no lease row has it in
  // history_heads. The plans reserve a history id as they lock the issue's
  // row (run-plan.ts), so that the lease row names its new history row in the
  // same statement. The rows already there are linked in their id order, ids
  // and tokens unchanged. Nothing else reads through history_by_issue: the
  // reply budget reads history_replies, the board's ended tenures
  // history_ended, and the token floor scans the table or follows the heads.
  (s) => `
  ALTER TABLE ${s}.history ADD COLUMN prev bigint;
  ALTER TABLE ${s}.leases ADD COLUMN last_history bigint;
  CREATE TABLE ${s}.history_heads (
    repo_id bigint NOT NULL,
    issue   bigint NOT NULL,
    last    bigint NOT NULL,
    PRIMARY KEY (repo_id, issue)
  );
  UPDATE ${s}.history h SET prev = linked.prev
    FROM (SELECT id, lag(id) OVER (PARTITION BY repo_id, issue ORDER BY id) AS prev FROM ${s}.history) linked
    WHERE h.id = linked.id AND linked.prev IS NOT NULL;
  WITH latest AS (SELECT repo_id, issue, max(id) AS last FROM ${s}.history GROUP BY repo_id, issue),
       named AS (
         UPDATE ${s}.leases l SET last_history = latest.last FROM latest
         WHERE l.repo_id = latest.repo_id AND l.issue = latest.issue
         RETURNING l.repo_id, l.issue)
  INSERT INTO ${s}.history_heads (repo_id, issue, last)
    SELECT latest.repo_id, latest.issue, latest.last FROM latest
    WHERE NOT EXISTS (SELECT 1 FROM named WHERE named.repo_id = latest.repo_id AND named.issue = latest.issue);
  DROP INDEX ${s}.history_by_issue;
  `,
  // 17: the inventory of open issues (issue 22); SQLite's 17 says why.
  (s) => `
  CREATE TABLE ${s}.inventory (
    repo_id         bigint NOT NULL,
    issue           bigint NOT NULL,
    title           text   NOT NULL,
    labels          text   NOT NULL,
    assignees       text   NOT NULL,
    milestone       text,
    author_id       bigint,
    author_login    text,
    created_at      bigint NOT NULL,
    state           text   NOT NULL,
    blocked_by_open integer,
    open_sub_issues integer,
    updated_at      bigint NOT NULL,
    PRIMARY KEY (repo_id, issue)
  );
  CREATE INDEX inventory_open ON ${s}.inventory (repo_id, created_at, issue) WHERE state = 'open';
  CREATE TABLE ${s}.inventory_labels (
    repo_id    bigint NOT NULL,
    label      text   NOT NULL,
    created_at bigint NOT NULL,
    issue      bigint NOT NULL,
    PRIMARY KEY (repo_id, label, created_at, issue)
  );
  CREATE TABLE ${s}.inventory_fills (
    repo_id   bigint PRIMARY KEY,
    filled_at bigint NOT NULL,
    issues    integer NOT NULL
  );
  `,
  // 18 (issue 22): the wait list, as
  // SQLite's 18. ttl_ms NULL: the lease handed is open-ended.
  (s) => `
  CREATE TABLE ${s}.queue (
    id              bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo_id         bigint  NOT NULL,
    issue           bigint  NOT NULL,
    holder_id       bigint  NOT NULL,
    holder_login    text    NOT NULL,
    holder_instance text,
    author_first    boolean NOT NULL DEFAULT false,
    queued_at       bigint  NOT NULL,
    until           bigint  NOT NULL,
    ttl_ms          bigint,
    remind_ms       bigint,
    updated_at      bigint  NOT NULL,
    ended_at        bigint,
    ended_why       text CHECK (ended_why IN ('handed', 'left', 'expired', 'closed'))
  );
  CREATE INDEX queue_line ON ${s}.queue (repo_id, issue, author_first DESC, queued_at, id) WHERE ended_at IS NULL;
  `,
  // 19 (issue 23): lease events, as SQLite's 19. Transactions that write
  // events take event_counter's row last (postgres/events.ts), so that they
  // commit in the order of their positions: a reader that has seen pos N
  // never finds an event below N later.
  (s) => `
  CREATE TABLE ${s}.events (
    pos             bigint  PRIMARY KEY,
    installation    bigint  NOT NULL,
    seq             bigint  NOT NULL,
    repo_id         bigint  NOT NULL,
    repo            text    NOT NULL,
    issue           bigint  NOT NULL,
    type            text    NOT NULL,
    at              bigint  NOT NULL,
    holder_id       bigint  NOT NULL,
    holder_login    text    NOT NULL,
    holder_instance text,
    token           bigint  NOT NULL,
    expires_at      bigint,
    actor_id        bigint,
    actor_login     text,
    cause           text    NOT NULL
  );
  CREATE INDEX events_by_repo ON ${s}.events (repo_id, pos);
  CREATE INDEX events_by_at ON ${s}.events (at);
  CREATE TABLE ${s}.event_counter (
    id  integer PRIMARY KEY CHECK (id = 1),
    pos bigint  NOT NULL
  );
  INSERT INTO ${s}.event_counter (id, pos) VALUES (1, 0);
  CREATE TABLE ${s}.event_seqs (
    installation bigint PRIMARY KEY,
    seq          bigint NOT NULL
  );
  CREATE TABLE ${s}.event_cursors (
    name text   PRIMARY KEY,
    pos  bigint NOT NULL
  );
  `,
  // 20: events are read by position alone, as SQLite's 20 (event_seqs
  // stays each installation's running counter here, taken under the
  // counter's lock: replicas cannot remember numbers between transactions).
  (s) => `
  DROP INDEX ${s}.events_by_repo;
  DROP INDEX ${s}.events_by_at;
  `,
];
