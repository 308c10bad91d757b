import type { Article } from '../db/generated/client.ts'
import { articleEtag } from './article-record.ts'

/** Headers that go with an article representation: its ETag and, on creation, its Location. */
export function articleHeaders(article: Article, options: { location?: boolean } = {}): Record<string, string> {
  return {
    ETag: articleEtag(article),
    ...(options.location && { Location: `/v1/articles/${article.id}` }),
  }
}
