-- Draft preview links: a token shown once and stored only as its SHA-256, opening one article of
-- one newsroom at GET /v1/preview/{token} until it expires or is revoked.
CREATE TABLE "preview_links" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "article_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "revision_id" TEXT,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "preview_links_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "preview_links_token_hash_key" ON "preview_links"("token_hash");
CREATE INDEX "preview_links_article_id_expires_at_idx" ON "preview_links"("article_id", "expires_at");

ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_article_id_fkey" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
