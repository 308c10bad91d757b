-- Secret rotation: the secret a rotation replaced keeps signing (beside the new one) until
-- previous_secret_expires_at. Encrypted like secret_encrypted (lib/webhooks/secret-box.ts).
ALTER TABLE "webhook_subscriptions"
  ADD COLUMN "previous_secret_encrypted" TEXT,
  ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
