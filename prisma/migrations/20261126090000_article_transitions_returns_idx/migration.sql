-- A newsroom's send-backs (in review or approved -> draft: isSendBack in
-- lib/articles/article-status.ts), newest first, for the desk's "sent back" list
-- (lib/articles/desk-article-lists.ts): walked from here rather than looking up the last move
-- of each of an author's drafts. Partial, so it holds only send-backs; Prisma cannot
-- express a partial index (schema.prisma says so beside the model).
CREATE INDEX "article_transitions_returns_idx" ON "article_transitions" ("tenant_id", "created_at" DESC, "id" DESC)
  WHERE "from_state" IN ('in-review', 'approved') AND "to_state" = 'draft' AND NOT "schedule_cancelled";
