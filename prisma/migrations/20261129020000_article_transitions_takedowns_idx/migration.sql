-- A newsroom's take-downs (published -> draft or archived), newest first, for the author's desk
-- ("Taken off the site": lib/articles/desk-article-lists.ts, listTakenDown), walked from here as
-- the send-backs are from article_transitions_returns_idx. Partial, so it holds only take-downs;
-- Prisma cannot express a partial index (schema.prisma says so beside the model).
CREATE INDEX "article_transitions_takedowns_idx" ON "article_transitions" ("tenant_id", "created_at" DESC, "id" DESC)
  WHERE "from_state" = 'published' AND "to_state" IN ('draft', 'archived') AND NOT "schedule_cancelled";
