-- Public content keys (issue 34): read-only keys a newsroom's site embeds to read its published
-- articles from /content/v1 through a shared cache. Hashed like API tokens; revoked, never deleted.
CREATE TABLE "content_keys" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "content_keys_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "content_keys_key_hash_key" ON "content_keys"("key_hash");
CREATE INDEX "content_keys_tenant_id_created_at_idx" ON "content_keys"("tenant_id", "created_at");

ALTER TABLE "content_keys" ADD CONSTRAINT "content_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
