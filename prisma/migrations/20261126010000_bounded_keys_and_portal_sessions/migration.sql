-- Keys people can bound: an optional expiry and address allowlist, and a roll's overlap (the
-- replaced secret's hash and when it stops working). Existing keys get neither bound: they keep
-- working as before (the contract's "tokens never expire" stays the default).
ALTER TABLE "api_tokens" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "api_tokens" ADD COLUMN "allowed_addresses" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "api_tokens" ADD COLUMN "previous_token_hash" TEXT;
ALTER TABLE "api_tokens" ADD COLUMN "previous_token_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "api_tokens" ADD COLUMN "rolled_at" TIMESTAMPTZ(3);
CREATE UNIQUE INDEX "api_tokens_previous_token_hash_key" ON "api_tokens"("previous_token_hash");

-- One row per portal sign-in, checked on every portal request. Sessions signed before this
-- migration carry no id and end at their next request (their members sign in again).
CREATE TABLE "portal_sessions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "user_agent" TEXT NOT NULL DEFAULT '',
    "client_address" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reauthenticated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),
    "ended_reason" TEXT,

    CONSTRAINT "portal_sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "portal_sessions_user_id_ended_at_idx" ON "portal_sessions"("user_id", "ended_at");
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
