-- Every change to an article's content keeps a revision: who, when, which fields, and the
-- content as it then stood. A trigger writes it, so every write path (Prisma creates and
-- updates, the bulk import's single upsert) records it in the same transaction as the change,
-- and a write that changes no content field (a transition, an identical re-import) records none.
-- Writers name themselves in articles.edited_by_id in the statement that changes the content.

ALTER TABLE "articles" ADD COLUMN "edited_by_id" TEXT;

CREATE TABLE "article_revisions" (
  "id" TEXT NOT NULL,
  "tenant_id" TEXT NOT NULL,
  "article_id" TEXT NOT NULL,
  -- The article's version this revision produced.
  "version" INTEGER NOT NULL,
  -- Null when the system wrote it (or the user was deleted).
  "actor_id" TEXT,
  "fields" TEXT[] NOT NULL,
  "headline" TEXT NOT NULL,
  "lede" TEXT,
  "body" TEXT,
  "department_id" TEXT,
  "tags" TEXT[] NOT NULL,
  "author_id" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "article_revisions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "article_revisions_article_order_idx" ON "article_revisions"("tenant_id", "article_id", "version" DESC, "id" DESC);

ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_article_id_fkey" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_actor_id_fkey" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE FUNCTION articles_record_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed text[] := '{}';
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed := ARRAY['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'];
  ELSE
    IF NEW.headline IS DISTINCT FROM OLD.headline THEN changed := changed || 'headline'::text; END IF;
    IF NEW.lede IS DISTINCT FROM OLD.lede THEN changed := changed || 'lede'::text; END IF;
    IF NEW.body IS DISTINCT FROM OLD.body THEN changed := changed || 'body'::text; END IF;
    IF NEW.department_id IS DISTINCT FROM OLD.department_id THEN changed := changed || 'department_id'::text; END IF;
    IF NEW.tags IS DISTINCT FROM OLD.tags THEN changed := changed || 'tags'::text; END IF;
    IF NEW.author_id IS DISTINCT FROM OLD.author_id THEN changed := changed || 'author_id'::text; END IF;
    IF cardinality(changed) = 0 THEN RETURN NULL; END IF;
  END IF;
  INSERT INTO article_revisions (id, tenant_id, article_id, version, actor_id, fields, headline, lede, body, department_id, tags, author_id)
  VALUES ('rev_' || replace(gen_random_uuid()::text, '-', ''), NEW.tenant_id, NEW.id, NEW.version,
          (SELECT id FROM users WHERE id = NEW.edited_by_id AND tenant_id = NEW.tenant_id),
          changed, NEW.headline, NEW.lede, NEW.body, NEW.department_id, NEW.tags, NEW.author_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER articles_record_revision AFTER INSERT OR UPDATE ON "articles"
  FOR EACH ROW EXECUTE FUNCTION articles_record_revision();

-- Articles written before revisions existed start their history with what they are now.
INSERT INTO article_revisions (id, tenant_id, article_id, version, actor_id, fields, headline, lede, body, department_id, tags, author_id, created_at)
SELECT 'rev_' || replace(gen_random_uuid()::text, '-', ''), tenant_id, id, version, NULL,
       ARRAY['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'], headline, lede, body, department_id, tags, author_id, updated_at
FROM articles;
