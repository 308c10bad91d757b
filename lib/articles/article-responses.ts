import type { Article } from '../db/generated/client.ts'
import { articleEtag } from './article-record.ts'
import { bodySanitisedWarning } from './stored-body.ts'

/** Headers that go with an article representation: its ETag, on creation its Location, and a Warning when a write sanitised the body. */
export function articleHeaders(article: Article & { bodyRemoved?: string[] }, options: { location?: boolean } = {}): Record<string, string> {
  return {
    ETag: articleEtag(article),
    ...(options.location && { Location: `/v1/articles/${article.id}` }),
    // A write whose body lost something says so (the body in the response is as stored).
    ...(article.bodyRemoved?.length && { Warning: bodySanitisedWarning(article.bodyRemoved) }),
  }
}
