/**
 * Walking the API's lists. Every list answers `items`; the offset lists also `next_offset`,
 * and every list `next_cursor`. A page function is the client call for one page, given the
 * paging parameters to add to the query.
 */
import { retryAfterMs } from './resilient-fetch.ts'

type Answer<Page> = { data?: Page; error?: unknown; response: Response }

/** A field the API refused, as a problem's `errors` lists it. */
export type FieldError = { field: string; message: string }

/**
 * A problem the API answered, thrown by unwrap. Its message is the problem's `detail` and, for
 * a refused request, every field error on a line of its own ("headline: Enter a headline."),
 * so a log line or an uncaught error says what to fix without opening `problem`.
 */
export class NewsroomApiError extends Error {
  readonly code: string | undefined
  readonly fieldErrors: FieldError[]
  readonly requestId: string | undefined
  /** Seconds the service asked to wait before retrying (`Retry-After` of a 429 or 503), when it said. */
  readonly retryAfter: number | undefined
  constructor(
    readonly status: number,
    readonly problem: unknown,
    headers?: Headers,
  ) {
    const body = problem && typeof problem === 'object' ? (problem as { detail?: unknown; code?: unknown; errors?: unknown; request_id?: unknown }) : {}
    const fieldErrors = Array.isArray(body.errors)
      ? body.errors.filter((error): error is FieldError => typeof error?.field === 'string' && typeof error?.message === 'string')
      : []
    const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${status}`
    super([`${detail}${typeof body.code === 'string' ? ` (${status} ${body.code})` : ''}`, ...fieldErrors.map((error) => `  ${error.field}: ${error.message}`)].join('\n'))
    this.name = 'NewsroomApiError'
    this.code = typeof body.code === 'string' ? body.code : undefined
    this.fieldErrors = fieldErrors
    this.requestId = typeof body.request_id === 'string' ? body.request_id : undefined
    const waitMs = retryAfterMs(headers?.get('Retry-After') ?? null)
    this.retryAfter = waitMs === null ? undefined : Math.ceil(waitMs / 1000)
  }
}

/** The page's data, or the problem it answered as a thrown NewsroomApiError. */
export function unwrap<Page>(answer: Answer<Page>): Page {
  if (answer.data === undefined) throw new NewsroomApiError(answer.response.status, answer.error, answer.response.headers)
  return answer.data
}

/** Every item of an offset-paged list (`offset`, `next_offset`), page by page. */
export async function* pagesByOffset<Item>(page: (paging: { offset: number }) => Promise<Answer<{ items: Item[]; next_offset: number | null }>>): AsyncGenerator<Item> {
  let offset: number | null = 0
  while (offset !== null) {
    const data: { items: Item[]; next_offset: number | null } = unwrap(await page({ offset }))
    yield* data.items
    offset = data.next_offset
  }
}

/** Every item of a cursor-paged list (`cursor`, `next_cursor`), until the last page. */
export async function* pagesByCursor<Item>(page: (paging: { cursor?: string }) => Promise<Answer<{ items: Item[]; next_cursor: string | null }>>): AsyncGenerator<Item> {
  let cursor: string | undefined
  for (;;) {
    const data = unwrap(await page(cursor === undefined ? {} : { cursor }))
    yield* data.items
    if (!data.next_cursor || data.items.length === 0) return
    cursor = data.next_cursor
  }
}

/**
 * Every item of a list, following whichever way to the next page the page offers: its
 * `next_cursor` when it has one, else its `next_offset`. A search (`q`) is ranked by relevance
 * and pages by offset only (`next_cursor` null, `next_offset` set), while the plain lists page
 * by cursor; a walk that followed only the cursor would stop after a search's first page and
 * silently drop the rest of the matches.
 */
export async function* pagesOf<Item>(
  page: (paging: { cursor?: string; offset?: number }) => Promise<Answer<{ items: Item[]; next_cursor?: string | null; next_offset?: number | null }>>,
): AsyncGenerator<Item> {
  let paging: { cursor?: string; offset?: number } = {}
  for (;;) {
    const data = unwrap(await page(paging))
    yield* data.items
    if (data.items.length === 0) return
    if (data.next_cursor) paging = { cursor: data.next_cursor }
    else if (typeof data.next_offset === 'number') paging = { offset: data.next_offset }
    else return
  }
}

/**
 * The sync recipe (docs/integrators.md: "Keeping a mirror in sync"): a feed (`GET /v1/articles?sort=updated_at`,
 * `GET /v1/events?sort=created_at`) read from the cursor kept last time (none: from the start)
 * until a page comes back empty. Hands each item to `apply` in order and returns the cursor to
 * keep for next time; apply an item before the cursor moves past it, so a crash repeats at most
 * a page (use the item's id to skip what was applied).
 */
export async function syncFeed<Item>(
  page: (paging: { cursor?: string }) => Promise<Answer<{ items: Item[]; next_cursor: string | null }>>,
  from: string | undefined,
  apply: (item: Item) => Promise<void> | void,
): Promise<string | undefined> {
  let cursor = from
  for (;;) {
    const data = unwrap(await page(cursor === undefined ? {} : { cursor }))
    for (const item of data.items) await apply(item)
    if (data.next_cursor) cursor = data.next_cursor
    if (data.items.length === 0 || !data.next_cursor) return cursor
  }
}
