-- The changes feed (sort=updated_at) and its cursors walk (updated_at, id) in order.
CREATE INDEX "articles_updated_order_idx" ON "articles"("tenant_id", "updated_at", "id");
