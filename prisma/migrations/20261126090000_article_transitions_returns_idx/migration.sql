-- A newsroom's returns from review (in-review -> draft), newest first, for the desk's "came back
-- from review" list (lib/articles/desk-article-lists.ts): walked from here rather than looking up
-- the last move of each of an author's drafts. Partial, so it holds only returns; Prisma cannot
-- express a partial index (schema.prisma says so beside the model).
CREATE INDEX "article_transitions_returns_idx" ON "article_transitions" ("tenant_id", "created_at" DESC, "id" DESC)
  WHERE "from_state" = 'in-review' AND "to_state" = 'draft' AND NOT "schedule_cancelled";
