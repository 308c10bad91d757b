import type { Article } from '../db/generated/client.ts'
import type { ArticleStatus } from '../db/generated/enums.ts'

/**
 * The articles table's columns under the Prisma model's field names, for the list, which reads
 * through tenantSql instead of Prisma (a single article stays with Prisma, whose batching of
 * concurrent findUnique calls serves it faster). tests/api/article-rows.integration.test.ts compares both reads
 * field by field, so a column added to the model and not here fails there.
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
  'version',
  'created_at AS "createdAt"',
  'updated_at AS "updatedAt"',
].join(', ')

type StoredArticle = Omit<Article, 'status'> & { status: string }

// The database keeps the API's spelling ('in-review'); the Prisma enum calls it in_review.
export function toArticle(row: StoredArticle): Article {
  return { ...row, status: (row.status === 'in-review' ? 'in_review' : row.status) as ArticleStatus }
}
