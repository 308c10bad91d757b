-- The events API (GET /v1/events) pages a newsroom's events by occurred_at and id, newest first
-- or oldest first, and may narrow them to one article. Both read an index in the page's order,
-- so a page costs what the first page costs however many events the newsroom keeps.
CREATE INDEX "events_tenant_order_idx" ON "events"("tenant_id", "occurred_at", "id");

-- The article filter: every article event's data carries article_id (the article record, or
-- workflow.transitioned's). An expression index, which Prisma's schema cannot express.
CREATE INDEX "events_article_order_idx" ON "events"("tenant_id", ("data"->>'article_id'), "occurred_at", "id");

-- Webhook filters: a subscription may narrow its article events by department, tag (any of,
-- any spelling) and status after the change. Empty arrays narrow nothing, so every existing
-- subscription keeps receiving what it received.
ALTER TABLE "webhook_subscriptions" ADD COLUMN "department_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "webhook_subscriptions" ADD COLUMN "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "webhook_subscriptions" ADD COLUMN "statuses" TEXT[] DEFAULT ARRAY[]::TEXT[];
