-- Two factors (issue 33, item 2, TOTP half): authenticator apps, recovery codes, sign-ins that
-- await their second step, and each newsroom's policy on who must have a factor.
ALTER TABLE "tenants" ADD COLUMN "two_factor_policy" TEXT NOT NULL DEFAULT 'optional',
    ADD COLUMN "two_factor_grace_days" INTEGER NOT NULL DEFAULT 14,
    ADD COLUMN "two_factor_policy_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_two_factor_policy_check" CHECK ("two_factor_policy" IN ('optional', 'admins', 'all'));

CREATE TABLE "totp_factors" (
    "user_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "secret_encrypted" TEXT NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),
    "last_used_step" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "totp_factors_pkey" PRIMARY KEY ("user_id")
);

CREATE TABLE "recovery_codes" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recovery_codes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "recovery_codes_code_hash_key" ON "recovery_codes"("code_hash");
CREATE INDEX "recovery_codes_user_id_idx" ON "recovery_codes"("user_id");

CREATE TABLE "pending_sign_ins" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pending_sign_ins_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "pending_sign_ins_token_hash_key" ON "pending_sign_ins"("token_hash");
CREATE INDEX "pending_sign_ins_user_id_idx" ON "pending_sign_ins"("user_id");

ALTER TABLE "totp_factors" ADD CONSTRAINT "totp_factors_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "pending_sign_ins" ADD CONSTRAINT "pending_sign_ins_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
