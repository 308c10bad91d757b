-- The changes feed (GET /v1/articles?sort=updated_at) in commit order instead of behind a
-- settle window. Every write of an article stamps it with the id of the transaction that made
-- it (pg_current_xact_id(), 64-bit, never wraps); the feed lists rows by (change_xid,
-- updated_at, id) and only those whose transaction is below articles_change_horizon() (below):
-- every transaction below it that could write articles has ended, so no change can later appear
-- before a row already listed (lib/articles/changes-feed.ts). A change shows as soon as every
-- write transaction that began before it has ended, instead of 10 s later.
--
-- Rows written before this migration keep the constant default 0 (no rewrite of the table, no
-- backfill: PostgreSQL stores the default once in the catalogue), which puts them first, in
-- their old (updated_at, id) order, so a cursor issued by the settle-window feed, which names an
-- (updated_at, id), reads as (0, updated_at, id) and resumes exactly where it stood.
ALTER TABLE "articles" ADD COLUMN "change_xid" xid8 NOT NULL DEFAULT '0';

CREATE OR REPLACE FUNCTION articles_stamp_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id();
  RETURN NEW;
END
$$;

CREATE TRIGGER articles_stamp_change_on_insert BEFORE INSERT ON "articles"
FOR EACH ROW EXECUTE FUNCTION articles_stamp_change();

-- The feed lists a change only once every transaction that could still write one before it has
-- ended, so none can later appear before a row it has listed (a cursor never passes a change
-- that commits late). The horizon is the oldest write transaction of this database still
-- running when the statement's snapshot was taken (or, with none, the snapshot's xmax): a
-- transaction id is taken in order, so any change with a lower one has committed (and is in
-- this snapshot) or rolled back. Read-only transactions hold no id and never hold the feed back;
-- a write transaction holds it only while it runs.
--
-- The snapshot's running transactions are the whole cluster's; those pg_stat_activity shows in
-- another database cannot write this one's articles and are passed over, so a long write
-- elsewhere on a shared server does not stop the feed. Any it cannot place (ended since,
-- prepared, no database) count as this database's: the horizon errs early, never late. On a hot
-- standby the running transactions are the primary's as replayed, and pg_current_snapshot lists
-- none of them (they are kept apart from xip there), so the horizon is the snapshot's xmin, the
-- oldest of them in any database. The embedded store (PGlite) has one session: no transaction
-- runs beside the statement, and the horizon is the snapshot's xmax.
--
-- STABLE is what makes it exact: a STABLE function runs on the snapshot of the statement that
-- calls it (a VOLATILE one would take a newer snapshot, whose horizon could pass changes the
-- statement cannot see), and the planner may use it as an index bound, evaluated once per scan.
-- PL/pgSQL keeps its plan for the session, so the feed's statement stays cheap to plan.
CREATE OR REPLACE FUNCTION articles_change_horizon() RETURNS xid8
LANGUAGE plpgsql STABLE AS $$
DECLARE
  snapshot pg_snapshot := pg_current_snapshot();
  horizon xid8;
BEGIN
  IF pg_is_in_recovery() THEN
    RETURN pg_snapshot_xmin(snapshot);
  END IF;
  SELECT min(running) INTO horizon FROM pg_snapshot_xip(snapshot) AS running
  WHERE running::text::bigint & 4294967295 NOT IN (
    SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname <> current_database());
  RETURN coalesce(horizon, pg_snapshot_xmax(snapshot));
END
$$;

-- Only a change (every write path raises version and updated_at) moves an article in the feed;
-- an update that rewrites nothing a reader sees (search-language.ts recomputing search vectors)
-- does not send the whole newsroom to its mirrors again.
CREATE TRIGGER articles_stamp_change_on_update BEFORE UPDATE ON "articles"
FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version OR NEW.updated_at IS DISTINCT FROM OLD.updated_at)
EXECUTE FUNCTION articles_stamp_change();

-- The feed's order. The settle-window feed's (tenant_id, updated_at, id) index stays for the
-- updated_after/updated_before filters. Built here up to 250,000 articles (about a second);
-- a bigger archive gets it from the server, CONCURRENTLY, while it serves
-- (lib/db/data-migrations/change-order-index.ts: 4.5 s at 1,100,000 would hold up start-up and
-- every write). Until then the feed is exact but sorts.
DO $$
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM "articles" LIMIT 250001) AS sample) <= 250000 THEN
    CREATE INDEX "articles_change_order_idx" ON "articles"("tenant_id", "change_xid", "updated_at", "id");
  END IF;
END
$$;
