-- The changes feed (GET /v1/articles?sort=updated_at) in commit order instead of behind a
-- settle window. Every write of an article stamps it with the id of the transaction that made
-- it (pg_current_xact_id(), 64-bit, never wraps); the feed lists rows by (change_xid,
-- updated_at, id) and only those whose transaction is below pg_snapshot_xmin(pg_current_snapshot()):
-- every transaction below it has ended, so no change can later appear before a row already
-- listed (lib/articles/changes-feed.ts). A change shows as soon as every write transaction that
-- began before it has ended, instead of 10 s later.
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
