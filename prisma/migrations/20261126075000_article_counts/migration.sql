-- Exact list totals without counting the archive (issue 31): the number of articles per
-- (tenant, status, department, publication bucket), kept by the articles' own statements in
-- their transaction, so a total summed from it is exactly what count(*) would answer in the
-- same snapshot. A list's total sums whole buckets and counts only the partial hours at the
-- edges of a publication range through the list-order index (lib/articles/article-counts.ts).
--
-- Every published article is counted in three buckets, its UTC hour ('h'), day ('d') and month
-- ('m'), so any range is a few whole months, at most two runs of whole days and two of whole
-- hours, and two partial hours. Unpublished articles are counted once, in grain 'u' (bucket
-- the epoch). No department is '' so that the key has no NULL.
--
-- `shard` spreads one key's increments over up to 8 rows (by the writing backend), so that
-- concurrent creates of drafts in one newsroom do not queue behind one row lock until commit.
CREATE TABLE "article_counts" (
    "tenant_id" TEXT NOT NULL,
    "grain" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "status" "ArticleStatus" NOT NULL,
    "department_id" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "article_counts_pkey" PRIMARY KEY ("tenant_id","grain","bucket","status","department_id","shard")
);

ALTER TABLE "article_counts" ADD CONSTRAINT "article_counts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The buckets one article is counted in.
CREATE FUNCTION article_count_buckets(published_at timestamptz) RETURNS TABLE (grain text, bucket timestamptz)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 'u', 'epoch'::timestamptz WHERE published_at IS NULL
  UNION ALL
  SELECT g.grain, date_trunc(g.unit, published_at, 'UTC')
  FROM (VALUES ('h', 'hour'), ('d', 'day'), ('m', 'month')) AS g (grain, unit)
  WHERE published_at IS NOT NULL
$$;

-- One statement's net change per key, applied in key order (two statements never wait for each
-- other's rows in opposite orders). Edits that move no article between keys change nothing.
-- Rows of a newsroom being deleted are left to its cascade. Static SQL, one function per kind of
-- statement, so that each plan is made once per connection (EXECUTE planned it on every write).
CREATE FUNCTION articles_count_inserts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO article_counts AS c (tenant_id, grain, bucket, status, department_id, shard, n)
  SELECT r.tenant_id, b.grain, b.bucket, r.status, coalesce(r.department_id, ''), pg_backend_pid() % 8, count(*)
  FROM new_rows AS r CROSS JOIN LATERAL article_count_buckets(r.published_at) AS b
  WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = r.tenant_id)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (tenant_id, grain, bucket, status, department_id, shard) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;

CREATE FUNCTION articles_count_updates() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Most updates are edits: nothing to do unless some row changed its key.
  IF NOT EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE n.status IS DISTINCT FROM o.status OR n.department_id IS DISTINCT FROM o.department_id OR n.published_at IS DISTINCT FROM o.published_at
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO article_counts AS c (tenant_id, grain, bucket, status, department_id, shard, n)
  SELECT r.tenant_id, b.grain, b.bucket, r.status, coalesce(r.department_id, ''), pg_backend_pid() % 8, sum(r.delta)
  FROM (SELECT tenant_id, status, department_id, published_at, 1 AS delta FROM new_rows
        UNION ALL SELECT tenant_id, status, department_id, published_at, -1 FROM old_rows) AS r
  CROSS JOIN LATERAL article_count_buckets(r.published_at) AS b
  WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = r.tenant_id)
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(r.delta) <> 0
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (tenant_id, grain, bucket, status, department_id, shard) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;

CREATE FUNCTION articles_count_deletes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO article_counts AS c (tenant_id, grain, bucket, status, department_id, shard, n)
  SELECT r.tenant_id, b.grain, b.bucket, r.status, coalesce(r.department_id, ''), pg_backend_pid() % 8, -count(*)
  FROM old_rows AS r CROSS JOIN LATERAL article_count_buckets(r.published_at) AS b
  WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = r.tenant_id)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (tenant_id, grain, bucket, status, department_id, shard) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;

CREATE TRIGGER articles_count_inserts AFTER INSERT ON articles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION articles_count_inserts();
CREATE TRIGGER articles_count_updates AFTER UPDATE ON articles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION articles_count_updates();
CREATE TRIGGER articles_count_deletes AFTER DELETE ON articles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION articles_count_deletes();

-- The articles there are now (a write waiting on this migration's lock is counted by its trigger).
LOCK TABLE articles IN SHARE MODE;
INSERT INTO article_counts (tenant_id, grain, bucket, status, department_id, shard, n)
SELECT a.tenant_id, b.grain, b.bucket, a.status, coalesce(a.department_id, ''), 0, count(*)
FROM articles a CROSS JOIN LATERAL article_count_buckets(a.published_at) AS b
GROUP BY 1, 2, 3, 4, 5;
