/**
 * SQLite schema, as an ordered list of migrations. `PRAGMA user_version`
 * records how many have run; each runs in its own transaction together with
 * the version bump, so a crash leaves the database at one version or the
 * next, never between. Append only: never edit a migration that has shipped.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: the lease table (current state of each issue's tenure) and its history.
  `
  CREATE TABLE leases (
    repo_id      INTEGER NOT NULL,
    issue        INTEGER NOT NULL,
    repo         TEXT    NOT NULL,
    holder_id    INTEGER,            -- NULL: free
    holder_login TEXT,
    token        INTEGER NOT NULL,   -- only ever goes up
    acquired_at  INTEGER,
    expires_at   INTEGER,            -- NULL: open-ended
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue)
  ) WITHOUT ROWID;
  CREATE INDEX leases_by_holder ON leases (holder_id, repo_id) WHERE holder_id IS NOT NULL;
  CREATE INDEX leases_by_expiry ON leases (expires_at) WHERE holder_id IS NOT NULL AND expires_at IS NOT NULL;

  CREATE TABLE history (
    -- Not AUTOINCREMENT: rows are never deleted, so the next id (max + 1) is
    -- never one used before, and sqlite_sequence would be one more page
    -- written by every operation.
    id           INTEGER PRIMARY KEY,
    repo_id      INTEGER NOT NULL,
    repo         TEXT    NOT NULL,
    issue        INTEGER NOT NULL,
    op           TEXT    NOT NULL,
    outcome      TEXT    NOT NULL,
    actor_id     INTEGER,
    actor_login  TEXT,
    holder_id    INTEGER,
    holder_login TEXT,
    token        INTEGER,
    expires_at   INTEGER,
    at           INTEGER NOT NULL,
    delivery     TEXT
  );
  CREATE INDEX history_by_issue ON history (repo_id, issue, id);
  `,
  // 2: webhook deliveries already applied, so that a redelivery has effects once.
  `
  CREATE TABLE deliveries (
    id     TEXT PRIMARY KEY,
    result TEXT NOT NULL,
    at     INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 3: reminders (once per term of a tenure) and the outbox of effects on GitHub.
  // The sweeper finds both expiries and reminders through one index, on when
  // it must next look at a lease (due_at): the earlier of its expiry and its
  // reminder not yet sent; NULL when free, or open-ended with no reminder.
  // One index entry per lease moves when a lease is written, where two did.
  `
  ALTER TABLE leases ADD COLUMN remind_at INTEGER;
  ALTER TABLE leases ADD COLUMN reminded INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE leases ADD COLUMN due_at INTEGER GENERATED ALWAYS AS (
    CASE WHEN holder_id IS NULL THEN NULL
         WHEN reminded = 0 AND remind_at IS NOT NULL THEN min(remind_at, coalesce(expires_at, remind_at))
         ELSE expires_at END) VIRTUAL;
  DROP INDEX leases_by_expiry;
  CREATE INDEX leases_by_due ON leases (due_at) WHERE due_at IS NOT NULL;

  CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY,  -- not AUTOINCREMENT, as history's
    repo_id      INTEGER NOT NULL,
    issue        INTEGER NOT NULL,
    installation INTEGER NOT NULL,
    kind         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    state        TEXT    NOT NULL DEFAULT 'pending',  -- pending | done | parked
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      INTEGER NOT NULL,
    locked_until INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    created_at   INTEGER NOT NULL,
    done_at      INTEGER
  );
  CREATE INDEX outbox_pending ON outbox (repo_id, issue, id) WHERE state = 'pending';
  CREATE INDEX outbox_due ON outbox (next_at) WHERE state = 'pending';
  `,
  // 4: what the outbox last applied per issue, and the installation serving each repository.
  `
  CREATE TABLE reflections (
    repo_id    INTEGER NOT NULL,
    issue      INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue)
  ) WITHOUT ROWID;
  CREATE TABLE repos (
    repo_id      INTEGER PRIMARY KEY,
    repo         TEXT    NOT NULL,
    installation INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
  );
  `,
  // 5: named locks with an expiry (one sweeper at a time).
  `
  CREATE TABLE locks (
    name  TEXT PRIMARY KEY,
    owner TEXT    NOT NULL,
    until INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 6: an issue's history is found from its latest row, each row naming the
  // one before it (prev), instead of through history_by_issue: appending to
  // the history then writes the table's last page and the lease row, which
  // the operation mostly writes anyway, and no page of an index. The lease row
  // names the latest row (last_history); for an issue never held, having no
  // lease row, history_heads does.
  `
  ALTER TABLE history ADD COLUMN prev INTEGER;
  ALTER TABLE leases ADD COLUMN last_history INTEGER;
  CREATE TABLE history_heads (
    repo_id INTEGER NOT NULL,
    issue   INTEGER NOT NULL,
    last    INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue)
  ) WITHOUT ROWID;
  UPDATE history SET prev = (
    SELECT max(p.id) FROM history p WHERE p.repo_id = history.repo_id AND p.issue = history.issue AND p.id < history.id);
  UPDATE leases SET last_history = (
    SELECT max(h.id) FROM history h WHERE h.repo_id = leases.repo_id AND h.issue = leases.issue);
  INSERT INTO history_heads (repo_id, issue, last)
    SELECT repo_id, issue, max(id) FROM history h
    WHERE NOT EXISTS (SELECT 1 FROM leases l WHERE l.repo_id = h.repo_id AND l.issue = h.issue)
    GROUP BY repo_id, issue;
  DROP INDEX history_by_issue;
  `,
  // 7: the outbox serves replies to commands before sweep effects (priority),
  // and counts parked effects without reading every row ever written.
  `
  ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
  DROP INDEX outbox_due;
  CREATE INDEX outbox_due ON outbox (priority, next_at) WHERE state = 'pending';
  CREATE INDEX outbox_parked ON outbox (id) WHERE state = 'parked';
  `,
  // 8: held leases indexed by repository, then holder, where they were by
  // holder, then repository. The limit check reads (repository, holder) as
  // before; a repository's live leases (read by the outbox whenever it takes
  // a label off an issue, to know whether another lease still uses it) are
  // found among its held rows, where they were among every row the
  // repository ever had. Same pages written per operation.
  `
  DROP INDEX leases_by_holder;
  CREATE INDEX leases_held ON leases (repo_id, holder_id) WHERE holder_id IS NOT NULL;
  `,
  // 9: outbox attempts are fenced by their attempt number (no column
  // needed); a reply carries a random nonce written with its effect, so that
  // the outbox can find it again and nobody can guess it; an effect un-parked
  // after a newer one of its issue was applied is marked late.
  `
  ALTER TABLE outbox ADD COLUMN nonce TEXT;
  ALTER TABLE outbox ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
  `,
  // 10: replies per person per hour. A command by someone the limit applies
  // to records whether its reply was posted (replied: 1, 2 for the notice
  // that the limit was reached, 0 suppressed); the rows with a reply posted
  // are indexed by (repository, actor, time), so counting a person's last
  // hour reads only those. Other rows (NULL) write no index entry.
  `
  ALTER TABLE history ADD COLUMN replied INTEGER;
  CREATE INDEX history_replies ON history (repo_id, actor_id, at) WHERE replied > 0;
  `,
  // 11: the token floor. A backup knows fewer tokens than GitHub saw (those
  // handed out after it are in labels, replies and pull requests), so
  // `issue-leases restore` records a floor: every new tenure, on any issue,
  // even one the backup never saw, gets a token above it. One row at most.
  `
  CREATE TABLE token_floor (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    floor    INTEGER NOT NULL,
    set_at   INTEGER NOT NULL,
    backup   TEXT    NOT NULL
  );
  `,
  // 12: claim policies (issue 11). Each issue's labels as its latest claim
  // saw them, lower-cased, with the token of the latest tenure that carried
  // each: a lease counts under a label when the row's token is its own, so
  // a new tenure only upserts its labels and older ones stop counting.
  // Repositories by installation, for the limit across an organisation.
  `
  CREATE TABLE lease_labels (
    repo_id  INTEGER NOT NULL,
    issue    INTEGER NOT NULL,
    label    TEXT    NOT NULL,
    token    INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue, label)
  ) WITHOUT ROWID;
  CREATE INDEX repos_by_installation ON repos (installation);
  `,
  // 13: leases that follow the work. Which open pull requests close which issues, by whom
  // (pull_links: written when a lease check reads it from GitHub, gone when
  // the pull request closes), and on the lease row what holds it besides
  // time: its holder's open pull requests that close the issue (pulls, JSON,
  // NULL for none: the "in review" test) and an exempt label (exempt). While
  // either holds it, expires_at and remind_at are NULL, so due_at is NULL and
  // the sweeps' index leaves the row out. term_ms is the length of the
  // current term, which the holder's activity renews; NULL for leases taken
  // before this migration (renewed by default_ttl) and open-ended ones.
  `
  CREATE TABLE pull_links (
    repo_id   INTEGER NOT NULL,
    pull      INTEGER NOT NULL,
    issue     INTEGER NOT NULL,
    author_id INTEGER NOT NULL,
    PRIMARY KEY (repo_id, pull, issue)
  ) WITHOUT ROWID;
  CREATE INDEX pull_links_by_issue ON pull_links (repo_id, issue, author_id);
  ALTER TABLE leases ADD COLUMN pulls TEXT;
  ALTER TABLE leases ADD COLUMN exempt INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE leases ADD COLUMN term_ms INTEGER;
  `,
  // 14: the holder's instance, a short name an API client gives so that
  // workers of one account are told apart (two instances, two holders); NULL
  // for a comment's holder. History keeps the holder's and the actor's.
  `
  ALTER TABLE leases ADD COLUMN holder_instance TEXT;
  ALTER TABLE history ADD COLUMN holder_instance TEXT;
  ALTER TABLE history ADD COLUMN actor_instance TEXT;
  `,
  // 15: the board (issue 12). What a page of live leases shows without a
  // read of GitHub: each repository's private flag and each leased issue's
  // title and labels, remembered from webhooks (NULL private: never seen in
  // one, shown as private). The page reads live leases in expiry order
  // (open-ended last) through leases_board, a holder's through
  // leases_board_holder (by id, which a renewal does not write), a label's
  // through issue_labels. Who holds the most is read from holder_counts,
  // kept by triggers in each lease write's own transaction, per holder and
  // scope (0: public repositories; a private or unknown one's id), so the
  // panel reads a few rows whatever the number of leases; holders are found
  // by login there too. A count that drops to 0 stays (a holder's next lease
  // then writes only the count, not a row and its index entries). Tenures
  // that ended are found through history_ended, whose entries only ending
  // rows write.
  `
  ALTER TABLE repos ADD COLUMN private INTEGER;
  CREATE TABLE issue_cards (
    repo_id    INTEGER NOT NULL,
    issue      INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    labels     TEXT    NOT NULL,  -- JSON array of names, as GitHub ordered them
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue)
  ) WITHOUT ROWID;
  CREATE TABLE issue_labels (
    repo_id INTEGER NOT NULL,
    issue   INTEGER NOT NULL,
    label   TEXT    NOT NULL COLLATE NOCASE,
    PRIMARY KEY (repo_id, issue, label)
  ) WITHOUT ROWID;
  CREATE INDEX issue_labels_by_label ON issue_labels (label);
  CREATE INDEX leases_board ON leases (coalesce(expires_at, 253402300799999), repo_id, issue) WHERE holder_id IS NOT NULL;
  CREATE INDEX leases_board_holder ON leases (holder_id) WHERE holder_id IS NOT NULL;
  CREATE INDEX history_ended ON history (at)
    WHERE (op IN ('release', 'force_release') AND outcome = 'released' AND holder_id IS NOT NULL) OR (op = 'expire' AND outcome = 'expired');
  CREATE TABLE holder_counts (
    scope     INTEGER NOT NULL,
    holder_id INTEGER NOT NULL,
    login     TEXT    NOT NULL COLLATE NOCASE,
    n         INTEGER NOT NULL,
    PRIMARY KEY (scope, holder_id)
  ) WITHOUT ROWID;
  CREATE INDEX holder_counts_top ON holder_counts (scope, n DESC, holder_id);
  CREATE INDEX holder_counts_login ON holder_counts (login);
  CREATE TRIGGER holder_counts_insert AFTER INSERT ON leases WHEN NEW.holder_id IS NOT NULL BEGIN
    INSERT INTO holder_counts (scope, holder_id, login, n)
      SELECT coalesce((SELECT 0 FROM repos WHERE repo_id = NEW.repo_id AND private = 0), NEW.repo_id), NEW.holder_id, NEW.holder_login, 1 WHERE 1
      ON CONFLICT (scope, holder_id) DO UPDATE SET n = n + 1;
    UPDATE holder_counts SET login = NEW.holder_login
      WHERE scope = coalesce((SELECT 0 FROM repos WHERE repo_id = NEW.repo_id AND private = 0), NEW.repo_id)
        AND holder_id = NEW.holder_id AND login IS NOT NEW.holder_login COLLATE BINARY;
  END;
  CREATE TRIGGER holder_counts_update AFTER UPDATE OF holder_id ON leases WHEN OLD.holder_id IS NOT NEW.holder_id BEGIN
    UPDATE holder_counts SET n = n - 1
      WHERE OLD.holder_id IS NOT NULL AND holder_id = OLD.holder_id
        AND scope = coalesce((SELECT 0 FROM repos WHERE repo_id = OLD.repo_id AND private = 0), OLD.repo_id);
    INSERT INTO holder_counts (scope, holder_id, login, n)
      SELECT coalesce((SELECT 0 FROM repos WHERE repo_id = NEW.repo_id AND private = 0), NEW.repo_id), NEW.holder_id, NEW.holder_login, 1
      WHERE NEW.holder_id IS NOT NULL
      ON CONFLICT (scope, holder_id) DO UPDATE SET n = n + 1;
    UPDATE holder_counts SET login = NEW.holder_login
      WHERE NEW.holder_id IS NOT NULL
        AND scope = coalesce((SELECT 0 FROM repos WHERE repo_id = NEW.repo_id AND private = 0), NEW.repo_id)
        AND holder_id = NEW.holder_id AND login IS NOT NEW.holder_login COLLATE BINARY;
  END;
  CREATE TRIGGER holder_counts_login AFTER UPDATE OF holder_login ON leases
    WHEN NEW.holder_id IS NOT NULL AND OLD.holder_id IS NEW.holder_id AND OLD.holder_login IS NOT NEW.holder_login BEGIN
    UPDATE holder_counts SET login = NEW.holder_login WHERE holder_id = NEW.holder_id;
  END;
  INSERT INTO holder_counts (scope, holder_id, login, n)
    SELECT l.repo_id, l.holder_id, max(l.holder_login), count(*) FROM leases l WHERE l.holder_id IS NOT NULL GROUP BY l.repo_id, l.holder_id;
  `,
  // 16: events arrive in any order, so a repository's private flag is
  // stored with the time of the payload that set it (visibility_at: its
  // repository.updated_at, ms; NULL for flags stored before), and an older
  // payload's flag is ignored (visibility-applies.ts). An issue deleted or
  // transferred away keeps its card row as a tombstone (gone_at; title and
  // labels emptied) so that a late event does not write them again.
  `
  ALTER TABLE repos ADD COLUMN visibility_at INTEGER;
  ALTER TABLE issue_cards ADD COLUMN gone_at INTEGER;
  `,
  // 17: the inventory of open issues (issue 22), kept from webhooks and
  // filled from GitHub's issue list, so that claiming the next ready issue
  // asks GitHub nothing. A row per issue of a served repository (state
  // open, closed, or gone: deleted or transferred away), with the payload's
  // time (updated_at) so that an older event never overwrites a newer one.
  // The ready list reads open issues oldest first through inventory_open, or
  // a label's through inventory_labels (lower-cased names, open issues only,
  // in creation order), and stops once it has enough; which open pull
  // requests close an issue is pull_links' (13), read through its index.
  // inventory_fills: when each repository was last filled.
  `
  CREATE TABLE inventory (
    repo_id         INTEGER NOT NULL,
    issue           INTEGER NOT NULL,
    title           TEXT    NOT NULL,
    labels          TEXT    NOT NULL,  -- JSON array of names, as GitHub ordered them
    assignees       TEXT    NOT NULL,  -- JSON array of {id, login}
    milestone       TEXT,
    author_id       INTEGER,
    author_login    TEXT,
    created_at      INTEGER NOT NULL,
    state           TEXT    NOT NULL,
    blocked_by_open INTEGER,
    open_sub_issues INTEGER,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (repo_id, issue)
  ) WITHOUT ROWID;
  CREATE INDEX inventory_open ON inventory (repo_id, created_at, issue) WHERE state = 'open';
  CREATE TABLE inventory_labels (
    repo_id    INTEGER NOT NULL,
    label      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    issue      INTEGER NOT NULL,
    PRIMARY KEY (repo_id, label, created_at, issue)
  ) WITHOUT ROWID;
  CREATE TABLE inventory_fills (
    repo_id   INTEGER PRIMARY KEY,
    filled_at INTEGER NOT NULL,
    issues    INTEGER NOT NULL
  );
  `,
  // 18 (issue 22): the wait list. A
  // place in line for a held issue, by holder (and instance), until a time
  // its holder renews by asking again, with the lease it gets when handed
  // (ttl_ms NULL: open-ended).
  // Rows are never deleted: a place ends with ended_at and why (handed,
  // left, expired, closed). queue_line reads an issue's live places in
  // their order. One live place per holder and instance is the plans' rule,
  // under the row lock (queue-plans.ts).
  `
  CREATE TABLE queue (
    id              INTEGER PRIMARY KEY,
    repo_id         INTEGER NOT NULL,
    issue           INTEGER NOT NULL,
    holder_id       INTEGER NOT NULL,
    holder_login    TEXT    NOT NULL,
    holder_instance TEXT,
    author_first    INTEGER NOT NULL DEFAULT 0,
    queued_at       INTEGER NOT NULL,
    until           INTEGER NOT NULL,
    ttl_ms          INTEGER,
    remind_ms       INTEGER,
    updated_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    ended_why       TEXT CHECK (ended_why IN ('handed', 'left', 'expired', 'closed'))
  );
  CREATE INDEX queue_line ON queue (repo_id, issue, author_first DESC, queued_at, id) WHERE ended_at IS NULL;
  `,
  // 19 (issue 23): lease events, one per change of a lease, written in its
  // transaction (event-plans.ts). pos is the one order of every event;
  // seq goes up per installation, from its counter (event_seqs); the next
  // pos is the last row's + 1, or after the highest pruned (event_counter,
  // written only by pruning): pruning old events (events_by_at) never lets
  // a position or a sequence number be given again. Readers
  // follow pos, per repository through events_by_repo; a named reader keeps
  // its position in event_cursors (the outgoing webhooks' dispatcher).
  `
  CREATE TABLE events (
    pos             INTEGER PRIMARY KEY,
    installation    INTEGER NOT NULL,
    seq             INTEGER NOT NULL,
    repo_id         INTEGER NOT NULL,
    repo            TEXT    NOT NULL,
    issue           INTEGER NOT NULL,
    type            TEXT    NOT NULL,
    at              INTEGER NOT NULL,
    holder_id       INTEGER NOT NULL,
    holder_login    TEXT    NOT NULL,
    holder_instance TEXT,
    token           INTEGER NOT NULL,
    expires_at      INTEGER,
    actor_id        INTEGER,
    actor_login     TEXT,
    cause           TEXT    NOT NULL
  );
  CREATE INDEX events_by_repo ON events (repo_id, pos);
  CREATE INDEX events_by_at ON events (at);
  CREATE TABLE event_counter (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    pos INTEGER NOT NULL
  );
  INSERT INTO event_counter (id, pos) VALUES (1, 0);
  CREATE TABLE event_seqs (
    installation INTEGER PRIMARY KEY,
    seq          INTEGER NOT NULL
  );
  CREATE TABLE event_cursors (
    name TEXT    PRIMARY KEY,
    pos  INTEGER NOT NULL
  );
  `,
  // 20: an event writes its row and no other page: each index entry, and
  // the installation's counter, was one more page in the WAL of every
  // operation that changed a lease (the events' cost to the ledger,
  // bench:events' ledger_ratio). Pruning deletes the events before the
  // first one young enough to keep, found by position; a repository's
  // events are read along the positions of a replay's range; event_seqs
  // now keeps, per installation, the highest seq pruning took, and the
  // next seq is read from the installation's newest row (events.ts).
  `
  DROP INDEX events_by_repo;
  DROP INDEX events_by_at;
  `,
];
