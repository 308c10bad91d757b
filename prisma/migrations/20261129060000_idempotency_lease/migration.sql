-- An Idempotency-Key's claim is a lease its instance renews while the work runs (a crashed
-- instance's claim lapses within seconds), and the write records its outcome on the key in
-- its own transaction (committed_at, outcomes): a retry after a crash either finds nothing
-- committed and runs the work, or finds the committed outcome and answers with it.
ALTER TABLE "idempotency_records" ADD COLUMN "claim_id" TEXT;
ALTER TABLE "idempotency_records" ADD COLUMN "lease_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "idempotency_records" ADD COLUMN "committed_at" TIMESTAMPTZ(3);
ALTER TABLE "idempotency_records" ADD COLUMN "outcomes" JSONB;
