-- Each history row names the article version its move (or schedule, or cancelled schedule)
-- produced, so a change refused as stale (412) can say which moves were made after the version
-- the client saw, and by whom. Rows written before this have none; revisions already carry theirs.
ALTER TABLE "article_transitions" ADD COLUMN "version" INTEGER;
