-- Revisions get their own number (1, 2, 3… per article), separate from the article version
-- (which moves and slug changes also raise, so revisions' versions had gaps that read as
-- missing revisions). A restore says which revision it put back: the restoring statement names
-- it in articles.restoring_revision_id, as edited_by_id names the editor, and every other
-- write clears it (updateOfReadArticle always sets it; the bulk import's upsert sets NULL).

ALTER TABLE "articles" ADD COLUMN "restoring_revision_id" TEXT;

ALTER TABLE "article_revisions" ADD COLUMN "number" INTEGER;
ALTER TABLE "article_revisions" ADD COLUMN "restored_from_revision_id" TEXT;

UPDATE "article_revisions" r SET "number" = n.number
FROM (SELECT id, row_number() OVER (PARTITION BY article_id ORDER BY version, created_at, id) AS number FROM "article_revisions") n
WHERE r.id = n.id;

ALTER TABLE "article_revisions" ALTER COLUMN "number" SET NOT NULL;

CREATE UNIQUE INDEX "article_revisions_article_number_key" ON "article_revisions"("tenant_id", "article_id", "number");

ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_restored_from_revision_id_fkey" FOREIGN KEY ("restored_from_revision_id") REFERENCES "article_revisions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Writes to one article hold its row lock until commit, so the next number cannot be taken twice.
CREATE OR REPLACE FUNCTION articles_record_revision() RETURNS trigger
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
  INSERT INTO article_revisions (id, tenant_id, article_id, version, number, actor_id, fields, headline, lede, body, department_id, tags, author_id, restored_from_revision_id)
  VALUES ('rev_' || replace(gen_random_uuid()::text, '-', ''), NEW.tenant_id, NEW.id, NEW.version,
          COALESCE((SELECT max(number) FROM article_revisions WHERE tenant_id = NEW.tenant_id AND article_id = NEW.id), 0) + 1,
          (SELECT id FROM users WHERE id = NEW.edited_by_id AND tenant_id = NEW.tenant_id),
          changed, NEW.headline, NEW.lede, NEW.body, NEW.department_id, NEW.tags, NEW.author_id,
          (SELECT id FROM article_revisions WHERE id = NEW.restoring_revision_id AND tenant_id = NEW.tenant_id AND article_id = NEW.id));
  RETURN NULL;
END
$$;
