-- Issue 46: when failed sign-ins locked the account (lib/auth/sign-in-throttle.ts), so its end is audited.
ALTER TABLE "users" ADD COLUMN "sign_in_locked_until" TIMESTAMPTZ(3);
