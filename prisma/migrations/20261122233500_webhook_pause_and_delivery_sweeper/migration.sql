-- Admins can pause a subscription; its deliveries wait (held) and go out on resume.
ALTER TYPE "WebhookStatus" ADD VALUE 'paused';

-- run_generation: which delivery run owns a delivery. The sweeper re-requests a stuck or held
-- delivery with the next generation, and any older run still alive stops at its next attempt.
-- held_at: when a run found the subscription paused and left the delivery waiting.
ALTER TABLE "deliveries"
  ADD COLUMN "run_generation" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "held_at" TIMESTAMPTZ(3);

CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries"("status", "next_attempt_at");
