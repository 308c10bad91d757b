-- What every article write pays per row in its triggers, made cheaper without changing what they
-- store (issue 31: a bulk import of 500 at 1,000,000 articles spent 110-170 ms of its ~360 in the
-- search vector trigger and 55 ms in the revision trigger; bench/results/bulk-2026-11-26-*.md).

-- The body's words straight from its HTML: the text search parser reads tags and entities as
-- tokens of their own ("XML tag", "XML entity") that no configuration indexes, so it gives the
-- same lexemes at the same positions as the tag-stripped, entity-decoded text (checked on tags
-- with attributes, comments, entities, non-ASCII words), without article_plain_text's two regular
-- expressions over the whole body: 27 ms against 45 ms for 500 wire bodies of 880 characters.
-- article_plain_text stays for the search snippets, which show the text. Stored vectors are
-- unchanged, so nothing is recomputed.
CREATE OR REPLACE FUNCTION article_search_vector(language regconfig, headline text, lede text, tags text[], body text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(language, coalesce(headline, '')), 'A')
      || setweight(to_tsvector(language, coalesce(lede, '')), 'B')
      || setweight(to_tsvector(language, coalesce(array_to_string(tags, ' '), '')), 'B')
      || setweight(to_tsvector(language, coalesce(body, '')), 'D')
$$;

-- A new article's first revision is number 1 (its revisions go with it when it is deleted, so none
-- can exist), and the lookups of the editor and of a restored revision run only when the row names
-- one: the same rows, without three index probes per inserted article.
CREATE OR REPLACE FUNCTION articles_record_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed text[] := '{}';
  next_number integer := 1;
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
