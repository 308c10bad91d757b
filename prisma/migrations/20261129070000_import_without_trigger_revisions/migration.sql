-- The revision trigger as before, except for the rows a newsroom's import inserts (SET LOCAL
-- newsroom.importing = 'on' in its transaction): the archive carries their revisions.
CREATE OR REPLACE FUNCTION articles_record_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed text[] := '{}';
  next_number integer := 1;
BEGIN
  -- A newsroom's import (lib/portability/import-newsroom.ts) brings its articles' revisions
  -- itself: the rows it inserts record none of their own.
  IF TG_OP = 'INSERT' AND current_setting('newsroom.importing', true) = 'on' THEN RETURN NULL; END IF;
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
    next_number := COALESCE((SELECT max(number) FROM article_revisions WHERE tenant_id = NEW.tenant_id AND article_id = NEW.id), 0) + 1;
  END IF;
  INSERT INTO article_revisions (id, tenant_id, article_id, version, number, actor_id, fields, headline, lede, body, department_id, tags, author_id, restored_from_revision_id)
  VALUES ('rev_' || replace(gen_random_uuid()::text, '-', ''), NEW.tenant_id, NEW.id, NEW.version, next_number,
          CASE WHEN NEW.edited_by_id IS NOT NULL THEN (SELECT id FROM users WHERE id = NEW.edited_by_id AND tenant_id = NEW.tenant_id) END,
          changed, NEW.headline, NEW.lede, NEW.body, NEW.department_id, NEW.tags, NEW.author_id,
          CASE WHEN NEW.restoring_revision_id IS NOT NULL THEN (SELECT id FROM article_revisions WHERE id = NEW.restoring_revision_id AND tenant_id = NEW.tenant_id AND article_id = NEW.id) END);
  RETURN NULL;
END
$$;
