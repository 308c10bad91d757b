-- The public content API reads an article by its slug (GET /content/v1/articles/{slug}), which
-- had no index: each such miss of a site's cache walked every article of the newsroom. Built
-- here up to 250,000 articles; a bigger archive gets it from the server, CONCURRENTLY, while it
-- serves (lib/db/data-migrations/deferred-indexes.ts), as the changes feed's index.
DO $$
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM "articles" LIMIT 250001) AS sample) <= 250000 THEN
    CREATE INDEX "articles_slug_idx" ON "articles"("tenant_id", "slug");
  END IF;
END
$$;
