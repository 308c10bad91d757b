-- Expand only: a nullable column the previous release neither reads nor writes. Set when a
-- member's sessions are ended everywhere or their second factors reset, so the known-browser
-- notes made before it stop counting (lib/auth/known-browser.ts).
ALTER TABLE "users" ADD COLUMN "credentials_changed_at" TIMESTAMPTZ(3);
