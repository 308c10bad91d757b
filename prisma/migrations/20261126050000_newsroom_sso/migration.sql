-- Single sign-on per newsroom (issue 33, item 1): the newsroom's OpenID Connect provider, its
-- client secret encrypted as webhook secrets are, "require SSO" and just-in-time creation.
CREATE TABLE "sso_connections" (
    "tenant_id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_encrypted" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "require_sso" BOOLEAN NOT NULL DEFAULT false,
    "jit_email_domain" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sso_connections_pkey" PRIMARY KEY ("tenant_id")
);

ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
