-- Full-text search over an article's headline, lede, tags and body text.
--
-- The vector is kept by a trigger rather than a generated column: a generated column can read
-- only its own row, but the text search configuration is a tenant setting (tenants.search_language),
-- and array_to_string (for the tags) is only STABLE, which a generated expression refuses.

-- The body's text as a reader sees it: comments and tags dropped, so markup ("strong", "href",
-- attribute values) never matches, and the common entities decoded. Only IMMUTABLE functions.
CREATE FUNCTION article_plain_text(html text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
  SELECT replace(replace(replace(replace(replace(replace(
    regexp_replace(regexp_replace(html, '<!--.*?-->', ' ', 'g'), '<[^>]*>', ' ', 'g'),
    '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&')
$$;

-- 'simple' by default: newsrooms write in several languages, and 'simple' neither stems nor drops
-- stop words, so a search finds exactly the words typed. A tenant may choose e.g. 'english'.
ALTER TABLE "tenants" ADD COLUMN "search_language" regconfig NOT NULL DEFAULT 'simple';

ALTER TABLE "articles" ADD COLUMN "search_vector" tsvector;

CREATE FUNCTION article_search_vector(language regconfig, headline text, lede text, tags text[], body text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(language, coalesce(headline, '')), 'A')
      || setweight(to_tsvector(language, coalesce(lede, '')), 'B')
      || setweight(to_tsvector(language, coalesce(array_to_string(tags, ' '), '')), 'B')
      || setweight(to_tsvector(language, coalesce(article_plain_text(body), '')), 'D')
$$;

CREATE FUNCTION articles_search_vector_refresh() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector := article_search_vector(
    (SELECT search_language FROM tenants WHERE id = NEW.tenant_id), NEW.headline, NEW.lede, NEW.tags, NEW.body);
  RETURN NEW;
END
$$;

CREATE TRIGGER articles_search_vector_insert BEFORE INSERT ON "articles"
  FOR EACH ROW EXECUTE FUNCTION articles_search_vector_refresh();
CREATE TRIGGER articles_search_vector_update BEFORE UPDATE OF headline, lede, tags, body, tenant_id ON "articles"
  FOR EACH ROW EXECUTE FUNCTION articles_search_vector_refresh();

UPDATE "articles" a
SET search_vector = article_search_vector(t.search_language, a.headline, a.lede, a.tags, a.body)
FROM "tenants" t WHERE t.id = a.tenant_id;

-- Leading with the tenant is not possible in a GIN index without btree_gin; every search also
-- filters tenant_id, which the planner applies to the (few) matching rows.
CREATE INDEX "articles_search_vector_idx" ON "articles" USING GIN ("search_vector");
