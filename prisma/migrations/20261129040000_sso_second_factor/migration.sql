-- Issue 46, point 4: whether a sign-in through the newsroom's identity provider also asks for
-- the portal's second factor, and whether admins must use the portal's factor regardless.
-- The defaults keep today's behaviour (the provider is trusted for its own MFA).
ALTER TABLE "tenants" ADD COLUMN "sso_second_factor" TEXT NOT NULL DEFAULT 'trust_provider',
    ADD COLUMN "admins_need_portal_factor" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_sso_second_factor_check" CHECK ("sso_second_factor" IN ('trust_provider', 'portal_factor'));
