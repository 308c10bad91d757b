-- The media library (issue 47): one row per image of a newsroom, its bytes in the media store
-- (lib/media/storage: files under the data directory, or an S3 bucket) under storage_key. One
-- record per (newsroom, sha256): uploading the same bytes again answers the existing record.
--
-- Articles gain featured_media_id, and media_ids: every library image the article uses (its
-- featured image and each <figure data-media-id="med_…"> of its body), kept by a trigger so that
-- no write path (PATCH, bulk import, restore, the portal) can forget it. `used_by`, the refusal to
-- delete an image a published article shows, and the desk's expiring-licence list read it through
-- articles_media_ids_idx.
-- AlterTable
ALTER TABLE "articles" ADD COLUMN     "featured_media_id" TEXT,
ADD COLUMN     "media_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "media" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "alt_text" TEXT,
    "caption" TEXT,
    "credit" TEXT,
    "copyright" TEXT,
    "source" TEXT,
    "usage_terms" TEXT,
    "embargo_until" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "withheld_at" TIMESTAMPTZ(3),
    "focal_x" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "focal_y" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "taken_at" TIMESTAMPTZ(3),
    "created_by_id" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "media_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "media_tenant_id_created_at_id_idx" ON "media"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "media_tenant_id_expires_at_idx" ON "media"("tenant_id", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "media_tenant_id_sha256_key" ON "media"("tenant_id", "sha256");

-- CreateIndex
CREATE INDEX "articles_media_ids_idx" ON "articles" USING GIN ("media_ids");

-- AddForeignKey
ALTER TABLE "media" ADD CONSTRAINT "media_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media" ADD CONSTRAINT "media_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


CREATE FUNCTION articles_collect_media_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.media_ids := ARRAY(
    SELECT DISTINCT id FROM (
      SELECT NEW.featured_media_id AS id
      UNION ALL
      SELECT m[1] FROM regexp_matches(coalesce(NEW.body, ''), 'data-media-id="(med_[0-9a-z]+)"', 'g') AS m
    ) AS used
    WHERE id IS NOT NULL
    ORDER BY id
  );
  RETURN NEW;
END
$$;

CREATE TRIGGER articles_collect_media_ids
  BEFORE INSERT OR UPDATE OF body, featured_media_id ON "articles"
  FOR EACH ROW EXECUTE FUNCTION articles_collect_media_ids();
