import type { Article } from '../db/generated/client.ts'
import { fromApiStatus, type ApiStatus } from './article-status.ts'
import type { RecordedArticle } from './article-record.ts'

/**
 * The articles table's columns under the Prisma model's field names, for the reads that go
 * through tenantSql instead of Prisma (lists, search, single articles read together).
 * tests/api/article-rows.integration.test.ts compares both reads field by field, so a column
 * added to the model and not here fails there.
 */
export const articleColumns = [
  'id',
  'tenant_id AS "tenantId"',
  'external_id AS "externalId"',
  'headline',
  'lede',
  'body',
  'department_id AS "departmentId"',
  'tags',
  'status::text AS status',
  'author_id AS "authorId"',
  'published_at AS "publishedAt"',
  'scheduled_publish_at AS "scheduledPublishAt"',
  'url',
  'slug',
  'previous_urls AS "previousUrls"',
  'version',
  'created_at AS "createdAt"',
  'updated_at AS "updatedAt"',
  'edited_by_id AS "editedById"',
  'restoring_revision_id AS "restoringRevisionId"',
  'featured_media_id AS "featuredMediaId"',
  'media_ids AS "mediaIds"',
].join(', ')

/**
 * The columns an article's API record shows (article-record.ts), under the same names: what a
 * list page read whole, or its records read by id, needs. The rest of articleColumns (the
 * tenant, the wire id, the editor, the restore, the media ids) was parsed for every row of a
 * page and dropped.
 */
export const articleRecordColumns = [
  'id',
  'headline',
  'lede',
  'body',
  'department_id AS "departmentId"',
  'tags',
  'status::text AS status',
  'author_id AS "authorId"',
  'published_at AS "publishedAt"',
  'scheduled_publish_at AS "scheduledPublishAt"',
  'url',
  'slug',
  'previous_urls AS "previousUrls"',
  'version',
  'created_at AS "createdAt"',
  'updated_at AS "updatedAt"',
  'featured_media_id AS "featuredMediaId"',
].join(', ')

/** A row read with articleRecordColumns. */
export type StoredArticleRecord = RecordedArticle & { status: ApiStatus }

/** A row read with articleColumns: the status is the database's label, which is the API's spelling. */
export type StoredArticle = Omit<Article, 'status'> & { status: ApiStatus }

export function toArticle({ status, ...row }: StoredArticle): Article {
  return { ...row, status: fromApiStatus(status) }
}
