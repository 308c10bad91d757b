-- What each attempt sent and got back, for the deliveries log (null on attempts made before).
ALTER TABLE "delivery_attempts"
  ADD COLUMN "request_headers" JSONB,
  ADD COLUMN "request_body" TEXT,
  ADD COLUMN "response_headers" JSONB,
  ADD COLUMN "response_body" TEXT,
  ADD COLUMN "response_body_truncated" BOOLEAN NOT NULL DEFAULT false;
