-- A published article never shows an image the library does not have (issue 47's delete/publish
-- race). Whatever the write path (a publication, a PATCH or the portal's save of a live story, a
-- revision's restore, a bulk import's update, the scheduled publication), when a row is published
-- and shows images it did not show published before, those images' rows are locked FOR SHARE
-- until the write commits, and any of them that is gone refuses the write (SQLSTATE NRM01, which
-- lib/media/live-media-refusal.ts turns into 422 media_not_publishable naming them).
--
-- Paired with deleteMedia, which locks the image's row FOR UPDATE before it looks for published
-- articles showing it: whichever of the two takes the row first, the other sees its outcome (the
-- deletion waits for the publication to commit and then finds it: 409 media_in_use; or the
-- publication waits for the deletion to commit and then finds the row gone: 422). The lock also
-- holds the image's alt text and rights still until the write commits, so the publish rule the
-- write path judges on the locked rows (lib/media/publishable-media.ts) stays true.
--
-- Runs after articles_collect_media_ids (triggers of one event fire in name order), so media_ids
-- is the written row's.
CREATE FUNCTION articles_guard_live_media() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added text[];
  present text[];
  missing text[];
BEGIN
  IF NEW.status <> 'published' THEN RETURN NEW; END IF;
  IF TG_OP = 'UPDATE' AND OLD.status = 'published' THEN
    IF NEW.media_ids IS NOT DISTINCT FROM OLD.media_ids THEN RETURN NEW; END IF;
    added := ARRAY(SELECT unnest(NEW.media_ids) EXCEPT SELECT unnest(OLD.media_ids));
  ELSE
    added := coalesce(NEW.media_ids, ARRAY[]::text[]);
  END IF;
  IF cardinality(added) = 0 THEN RETURN NEW; END IF;
  -- In id order, so two writers locking overlapping images cannot deadlock on them. A row
  -- deleted by a transaction this lock waited for is not returned.
  present := ARRAY(SELECT id FROM media WHERE tenant_id = NEW.tenant_id AND id = ANY(added) ORDER BY id FOR SHARE);
  missing := ARRAY(SELECT unnest(added) EXCEPT SELECT unnest(present) ORDER BY 1);
  IF cardinality(missing) > 0 THEN
    RAISE EXCEPTION 'a published article may not show images the media library does not have: %', array_to_string(missing, ', ')
      USING ERRCODE = 'NRM01', DETAIL = array_to_string(missing, ',');
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER articles_guard_live_media
  BEFORE INSERT OR UPDATE ON "articles"
  -- Only published rows pay for the function call: most writes are to drafts.
  FOR EACH ROW WHEN (NEW.status = 'published') EXECUTE FUNCTION articles_guard_live_media();
