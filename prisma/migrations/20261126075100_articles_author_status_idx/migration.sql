-- An author's articles in one state, from the index alone (issue 31): the desk's "your drafts"
-- count and its returned-from-review list filtered the newsroom's drafts on author_id through
-- the heap, 145,000 pages and 1.8 s at 1,000,000 articles (bench/results/lists-2026-11-26-*.md).
-- It serves every query (tenant_id, author_id) did.
DROP INDEX "articles_tenant_id_author_id_idx";
CREATE INDEX "articles_tenant_id_author_id_status_id_idx" ON "articles"("tenant_id", "author_id", "status", "id");
