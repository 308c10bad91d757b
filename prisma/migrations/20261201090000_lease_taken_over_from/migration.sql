-- Whose live lease the current one took over (lib/articles/edit-lease.ts), null when it began on a
-- free article: a page of the editor whose lease was taken, asleep while their other window kept
-- it, judged by its own lapsed claim that nobody took it over (break72).
-- Expand only: a nullable column, which the previous release neither reads nor writes.
ALTER TABLE "article_leases" ADD COLUMN "taken_over_from_id" TEXT;
