-- media_ids reads the data-media-id of <figure> tags only. The body is the sanitiser's output, so
-- a '<' in text is always '&lt;' and a figure tag cannot be forged by text; but a quote is kept
-- as it is, so a paragraph that quotes the markup (a how-to, a correction notice) was taken for an
-- image the article shows: listed in used_by, and its publication refused as "not in the library".
-- lib/media/article-images.ts reads figures the same way.
CREATE OR REPLACE FUNCTION articles_collect_media_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.media_ids := ARRAY(
    SELECT DISTINCT id FROM (
      SELECT NEW.featured_media_id AS id
      UNION ALL
      SELECT m[1] FROM regexp_matches(coalesce(NEW.body, ''), '<figure\s[^>]*data-media-id="(med_[0-9a-z]+)"', 'g') AS m
    ) AS used
    WHERE id IS NOT NULL
    ORDER BY id
  );
  RETURN NEW;
END
$$;

-- Only the rows whose text had been taken for a figure change (rare): body is written to itself,
-- which runs the function above; rows it computes alike are not touched.
UPDATE articles SET body = body
WHERE body LIKE '%data-media-id=%'
  AND media_ids IS DISTINCT FROM ARRAY(
    SELECT DISTINCT id FROM (
      SELECT featured_media_id AS id
      UNION ALL
      SELECT m[1] FROM regexp_matches(coalesce(body, ''), '<figure\s[^>]*data-media-id="(med_[0-9a-z]+)"', 'g') AS m
    ) AS used
    WHERE id IS NOT NULL
    ORDER BY id
  );
