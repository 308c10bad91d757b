import { defaultArticlePageSize, listArticlesQuerySchema, maxArticlePageSize, type ListArticlesQuery } from '@/lib/articles/article-schemas'

// The list's filters live in the URL, named as /v1 names them, so a page of results can be
// bookmarked and shared, and the same link means the same instants in every time zone.

export const pageSizes = [10, 25, defaultArticlePageSize, 100, maxArticlePageSize] as const
const defaultLimit = defaultArticlePageSize

const filterKeys = ['q', 'status', 'department_id', 'author_id', 'tag', 'published_after', 'published_before'] as const
type FilterKey = (typeof filterKeys)[number]

export type ListParams = Pick<ListArticlesQuery, FilterKey | 'limit' | 'offset'>

/**
 * The list query of a URL. Each parameter is checked with the /v1 schema on its own; one
 * that fails is left out and named in `ignored`, so a mistyped link still shows a list.
 */
export function readListParams(search: URLSearchParams): { params: ListParams; ignored: string[] } {
  const shape = listArticlesQuerySchema.shape
  const params: ListParams = { limit: defaultLimit, offset: 0 }
  const ignored: string[] = []
  for (const key of [...filterKeys, 'limit', 'offset'] as const) {
    const raw = search.get(key)
    if (raw === null || raw === '') continue
    const parsed = shape[key].safeParse(raw)
    if (parsed.success && parsed.data !== undefined) Object.assign(params, { [key]: parsed.data })
    else ignored.push(key)
  }
  return { params, ignored }
}

/** The list's address for these parameters; defaults are left out to keep links short. */
export function listHref(params: Partial<ListParams>): string {
  const search = new URLSearchParams()
  for (const key of filterKeys) {
    const value = params[key]
    if (value) search.set(key, value)
  }
  if (params.limit !== undefined && params.limit !== defaultLimit) search.set('limit', String(params.limit))
  if (params.offset) search.set('offset', String(params.offset))
  const query = search.toString()
  return query ? `/articles?${query}` : '/articles'
}
