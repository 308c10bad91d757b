import type { Article } from '../db/generated/client.ts'
import { sanitizeBodyReporting } from './sanitize-body.ts'

/** An article as a write stored it, with what was removed from the body that was sent. */
export type WrittenArticle = Article & { bodyRemoved: string[] }

/**
 * A body as it may be stored: every write path (create, PATCH, bulk import, the portal through
 * tRPC, the body backfill) passes the body it was sent through here, so what is stored is what
 * readers and webhook receivers get. `removed` names what the allow-list took out, for the
 * writer to be told (a Warning header on /v1, a field in the portal and bulk results).
 * undefined (field not sent) and null (cleared) pass unchanged.
 */
export function cleanBody<Body extends string | null | undefined>(body: Body): { body: Body; removed: string[] } {
  if (typeof body !== 'string') return { body, removed: [] }
  const { html, removed } = sanitizeBodyReporting(body)
  return { body: html as Body, removed }
}
