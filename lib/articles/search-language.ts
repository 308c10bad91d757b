import { db } from '../db/client.ts'
import { ValidationError } from '../errors.ts'
import { articlesChanged } from './article-totals.ts'

/**
 * Chooses the text-search language of a tenant's articles ('simple', 'english', 'german', …: one
 * of PostgreSQL's text search configurations) and re-indexes its articles with it, in one
 * transaction so a search never mixes two languages. 'simple' is the default: a newsroom that
 * writes in several languages gets every word as typed, with no stemming surprises.
 */
export async function setSearchLanguage(tenantId: string, language: string): Promise<void> {
  const known = await db.$queryRaw<{ name: string }[]>`SELECT cfgname AS name FROM pg_ts_config WHERE cfgname = ${language}`
  if (known.length === 0) {
    throw new ValidationError([{ field: 'search_language', message: `${language} is not a text search language; use simple, english, german, french, …` }])
  }
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`UPDATE tenants SET search_language = ${language}::regconfig WHERE id = ${tenantId}`
    // The trigger recomputes each vector with the tenant's new language.
    await tx.$executeRaw`UPDATE articles SET tags = tags WHERE tenant_id = ${tenantId}`
  })
  // Searches now match differently: cached totals and answers of the old language no longer hold.
  await articlesChanged([tenantId])
}

/** The tenant's text-search language. */
export async function searchLanguage(tenantId: string): Promise<string> {
  const [row] = await db.$queryRaw<{ language: string }[]>`SELECT search_language::text AS language FROM tenants WHERE id = ${tenantId}`
  return row?.language ?? 'simple'
}
