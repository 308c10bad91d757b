-- An article's public address is editable. `slug` is the readable part of it: null while it
-- follows the headline (never set by an editor, never published); stored from the first
-- publication on, so a later headline change never moves a live page. `previous_urls` keeps
-- every public address the article had that is not its current `url`, for sites to redirect.
ALTER TABLE "articles" ADD COLUMN "slug" TEXT;
ALTER TABLE "articles" ADD COLUMN "previous_urls" TEXT[] NOT NULL DEFAULT '{}';

-- Published articles keep the address they went out under: its slug is the part of the URL
-- before the id (…/articles/<slug>-<id without its prefix>).
UPDATE "articles" SET "slug" = substring("url" from '/articles/(.+)-[^-/]+$') WHERE "url" IS NOT NULL;
