import type { Article } from '../db/generated/client.ts'
import { fromApiStatus, type ApiStatus } from './article-status.ts'
import type { RecordedArticle } from './article-record.ts'

// Each column of the articles table under the Prisma model's field name, written once for both
// lists below.
const columnOf = {
  id: 'id',
  tenantId: 'tenant_id AS "tenantId"',
  externalId: 'external_id AS "externalId"',
  headline: 'headline',
  lede: 'lede',
  body: 'body',
  departmentId: 'department_id AS "departmentId"',
  tags: 'tags',
  status: 'status::text AS status',
  authorId: 'author_id AS "authorId"',
  publishedAt: 'published_at AS "publishedAt"',
  scheduledPublishAt: 'scheduled_publish_at AS "scheduledPublishAt"',
  url: 'url',
  slug: 'slug',
  previousUrls: 'previous_urls AS "previousUrls"',
  version: 'version',
  createdAt: 'created_at AS "createdAt"',
  updatedAt: 'updated_at AS "updatedAt"',
  editedById: 'edited_by_id AS "editedById"',
  restoringRevisionId: 'restoring_revision_id AS "restoringRevisionId"',
  featuredMediaId: 'featured_media_id AS "featuredMediaId"',
  mediaIds: 'media_ids AS "mediaIds"',
} satisfies Partial<Record<keyof Article, string>>

/**
 * The articles table's columns under the Prisma model's field names, for the reads that go
 * through tenantSql instead of Prisma (lists, search, single articles read together).
 * tests/api/article-rows.integration.test.ts compares both reads field by field, so a column
 * added to the model and not here fails there.
 */
export const articleColumns = Object.values(columnOf).join(', ')

/**
 * The columns an article's API record shows (article-record.ts), under the same names: what a
 * list page read whole, or its records read by id, needs. The rest of articleColumns (the
 * tenant, the wire id, the editor, the restore, the media ids) was parsed for every row of a
 * page and dropped.
 */
export const articleRecordColumns = (
  ['id', 'headline', 'lede', 'body', 'departmentId', 'tags', 'status', 'authorId', 'publishedAt', 'scheduledPublishAt', 'url', 'slug', 'previousUrls', 'version', 'createdAt', 'updatedAt', 'featuredMediaId'] as const
)
  .map((field) => columnOf[field])
  .join(', ')

/** A row read with articleRecordColumns. */
export type StoredArticleRecord = RecordedArticle & { status: ApiStatus }

/** A row read with articleColumns: the status is the database's label, which is the API's spelling. */
export type StoredArticle = Omit<Article, 'status'> & { status: ApiStatus }

export function toArticle({ status, ...row }: StoredArticle): Article {
  return { ...row, status: fromApiStatus(status) }
}
