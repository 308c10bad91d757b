-- Cancelling a scheduled publication is part of an article's history: a row that names the
-- schedule it took back (publish_at) and who did it, marked so it is not read as a scheduling.
ALTER TABLE "article_transitions" ADD COLUMN "schedule_cancelled" BOOLEAN NOT NULL DEFAULT false;
