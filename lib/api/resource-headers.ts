import type { Article } from '../db/generated/client.ts'
import type { ExpectedVersion } from '../articles/change-current-version.ts'

// The HTTP grammar of /v1 representations: the domain speaks version numbers and ids; /v1
// speaks ETags, If-Match, Location and Warning.

/** A strong ETag from the article's version, which every change increases. */
export function articleEtag(article: Pick<Article, 'version'>): string {
  return `"${article.version}"`
}

/**
 * The versions an If-Match header allows a change to: none (undefined) when it is absent or `*`;
 * otherwise those of its strong ETags that name a version. A tag that names none (weak, or not
 * a version of ours) matches nothing, so the change is refused with 412 as RFC 9110 says.
 */
export function expectedVersionFromIfMatch(header: string | null): ExpectedVersion | undefined {
  if (header === null || header.trim() === '*') return undefined
  return header.split(',').flatMap((tag) => {
    const version = /^"([1-9]\d{0,14})"$/.exec(tag.trim())?.[1]
    return version ? [Number(version)] : []
  })
}

/** The Warning header value (RFC 9111 code 299, "miscellaneous persistent warning") for a sanitised body. */
function bodySanitisedWarning(removed: string[]): string {
  return `299 - "body sanitised: removed ${removed.join(', ').replaceAll('"', "'")}"`
}

/** Headers that go with an article representation: its ETag, on creation its Location, and a Warning when a write sanitised the body. */
export function articleHeaders(article: Article & { bodyRemoved?: string[] }, options: { location?: boolean } = {}): Record<string, string> {
  return {
    ETag: articleEtag(article),
    ...(options.location && { Location: `/v1/articles/${article.id}` }),
    // A write whose body lost something says so (the body in the response is as stored).
    ...(article.bodyRemoved?.length && { Warning: bodySanitisedWarning(article.bodyRemoved) }),
  }
}

/** Headers that go with a newly created subscription. */
export function webhookLocation(subscription: { id: string }): Record<string, string> {
  return { Location: `/v1/webhooks/${subscription.id}` }
}

/** Headers that go with a media record: its version as ETag (If-Match as for articles), on creation its Location. */
export function mediaHeaders(media: { id: string; version: number }, options: { location?: boolean } = {}): Record<string, string> {
  return { ETag: `"${media.version}"`, ...(options.location && { Location: `/v1/media/${media.id}` }) }
}

/**
 * Content-Disposition for a stored file name (RFC 6266): an ASCII `filename` for old clients and
 * `filename*` with the name as written in UTF-8. A header carries bytes up to 0xFF only, and file
 * names come from phones and agencies in every script: written raw, Łódź.jpg made the response
 * throw (a 500) and Köln.jpg reached browsers as Latin-1.
 */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`
}
