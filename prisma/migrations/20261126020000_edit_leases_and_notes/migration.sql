-- Edit leases (one row per article, claimed with INSERT … ON CONFLICT DO UPDATE … WHERE so two
-- racing claims cannot both win) and the article's thread of notes, which also records
-- take-overs of a lease and writes that overrode one (see lib/articles/edit-lease.ts).
CREATE TABLE "article_leases" (
    "article_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "holder_id" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "article_leases_pkey" PRIMARY KEY ("article_id")
);

CREATE TABLE "article_notes" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "article_id" TEXT NOT NULL,
    "author_id" TEXT,
    "kind" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "transition_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "article_notes_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "article_notes_article_id_created_at_id_idx" ON "article_notes"("article_id", "created_at" DESC, "id" DESC);

ALTER TABLE "article_leases" ADD CONSTRAINT "article_leases_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_leases" ADD CONSTRAINT "article_leases_article_id_fkey" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_leases" ADD CONSTRAINT "article_leases_holder_id_fkey" FOREIGN KEY ("holder_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_notes" ADD CONSTRAINT "article_notes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_notes" ADD CONSTRAINT "article_notes_article_id_fkey" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_notes" ADD CONSTRAINT "article_notes_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
