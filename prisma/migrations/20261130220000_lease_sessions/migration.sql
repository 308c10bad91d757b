-- Each editing session's claim on a lease (lib/articles/edit-lease.ts): one person's two tabs
-- hold the article's one lease together, and a save in one lets go of its own claim only, not of
-- the other tab's with unsaved edits. Session key → when its claim lapses (epoch milliseconds).
-- Expand only: a column with a default, which the previous release neither reads nor writes.
ALTER TABLE "article_leases" ADD COLUMN "sessions" JSONB NOT NULL DEFAULT '{}';
