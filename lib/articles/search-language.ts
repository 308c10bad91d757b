import { recordAudit } from '../audit.ts'
import { assertMemberCan } from '../auth/permissions.ts'
import { db } from '../db/client.ts'
import { ValidationError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { articlesChanged } from './article-totals.ts'

/**
 * The languages an admin may choose in Settings: PostgreSQL's built-in text search
 * configurations that stem (Snowball), and 'simple', which does not.
 */
export const searchLanguageChoices = [
  { value: 'simple', label: 'No stemming (every word as typed)' },
  { value: 'danish', label: 'Danish' },
  { value: 'dutch', label: 'Dutch' },
  { value: 'english', label: 'English' },
  { value: 'finnish', label: 'Finnish' },
  { value: 'french', label: 'French' },
  { value: 'german', label: 'German' },
  { value: 'hungarian', label: 'Hungarian' },
  { value: 'italian', label: 'Italian' },
  { value: 'norwegian', label: 'Norwegian' },
  { value: 'portuguese', label: 'Portuguese' },
  { value: 'romanian', label: 'Romanian' },
  { value: 'russian', label: 'Russian' },
  { value: 'spanish', label: 'Spanish' },
  { value: 'swedish', label: 'Swedish' },
  { value: 'turkish', label: 'Turkish' },
] as const

/**
 * Chooses the text-search language of a tenant's articles ('simple', 'english', 'german', …: one
 * of PostgreSQL's text search configurations) and re-indexes its articles with it, in one
 * transaction so a search never mixes two languages. 'simple' is the default: a newsroom that
 * writes in several languages gets every word as typed, with no stemming surprises.
 */
export async function setSearchLanguage(
  tenantId: string,
  language: string,
  // Runs in the change's own transaction (the portal's audit entry).
  alongside?: (tx: Parameters<Parameters<typeof db.$transaction>[0]>[0]) => Promise<void>,
): Promise<void> {
  const known = await db.$queryRaw<{ name: string }[]>`SELECT cfgname AS name FROM pg_ts_config WHERE cfgname = ${language}`
  if (known.length === 0) {
    throw new ValidationError([{ field: 'search_language', message: `${language} is not a text search language; use simple, english, german, french, …` }])
  }
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`UPDATE tenants SET search_language = ${language}::regconfig WHERE id = ${tenantId}`
    // The trigger recomputes each vector with the tenant's new language.
    await tx.$executeRaw`UPDATE articles SET tags = tags WHERE tenant_id = ${tenantId}`
    await alongside?.(tx)
  })
  // Searches now match differently: cached totals and answers of the old language no longer hold.
  await articlesChanged([tenantId])
}

/** The tenant's text-search language. */
export async function searchLanguage(tenantId: string): Promise<string> {
  const [row] = await db.$queryRaw<{ language: string }[]>`SELECT search_language::text AS language FROM tenants WHERE id = ${tenantId}`
  return row?.language ?? 'simple'
}

/**
 * An admin chooses the newsroom's search language in Settings: one of searchLanguageChoices,
 * re-indexing every article, audited with the language before and after.
 */
export async function chooseSearchLanguage(actor: Actor, language: string): Promise<{ language: string }> {
  assertMemberCan(actor, 'admin')
  if (!searchLanguageChoices.some((choice) => choice.value === language)) {
    throw new ValidationError([{ field: 'language', message: `Choose one of: ${searchLanguageChoices.map((choice) => choice.value).join(', ')}.` }])
  }
  const previous = await searchLanguage(actor.tenant.id)
  if (previous === language) return { language }
  await setSearchLanguage(actor.tenant.id, language, async (tx) => {
    await recordAudit(tx, {
      tenantId: actor.tenant.id,
      actorId: actor.user.id,
      action: 'tenant.search_language_changed',
      targetType: 'tenant',
      targetId: actor.tenant.id,
      metadata: { from: previous, to: language },
    })
  })
  return { language }
}
