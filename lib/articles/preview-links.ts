import { createHash, randomBytes } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Article } from '../db/generated/client.ts'
import { NotFoundError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import { toArticleRecord } from './article-record.ts'
import { asPublished } from './article-preview.ts'
import type { ArticleRecord } from './article-schemas.ts'
import { defaultPreviewSeconds, type MintedPreviewLink, type PreviewLinkRecord } from './preview-link-schemas.ts'

// A preview token is 32 random bytes: unguessable, so it needs no signature and no rate limit;
// only its SHA-256 is stored (as API tokens), so the database cannot hand out working links.
const tokenPrefix = 'nrp_'

function hashPreviewToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

type LinkRow = { id: string; articleId: string; revisionId: string | null; expiresAt: Date; createdAt: Date; createdBy: { id: string; name: string } | null }

function toRecord(row: LinkRow): PreviewLinkRecord {
  return {
    preview_link_id: row.id,
    article_id: row.articleId,
    revision_id: row.revisionId,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
  }
}

const include = { createdBy: { select: { id: true, name: true } } } as const

/** The newsroom site's page that shows a preview: `<public_site_url>/preview?token=…`. */
export function previewUrl(publicSiteUrl: string, token: string): string {
  return `${publicSiteUrl.replace(/\/+$/, '')}/preview?token=${encodeURIComponent(token)}`
}

/**
 * Mints a link that shows the article (as it is when opened, or one revision of it) on the
 * newsroom's site before publication. Who may publish decides (articles:write); minting is audited.
 */
export async function createPreviewLink(actor: Actor, articleId: string, input: { expires_in?: number; revision_id?: string }, now = new Date()): Promise<MintedPreviewLink> {
  assertCan(actor, 'articles:write')
  const tenantId = actor.tenant.id
  const tdb = tenantDb(tenantId)
  const article = await tdb.article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
  if (input.revision_id) {
    const revision = await tdb.articleRevision.findFirst({ where: { id: input.revision_id, articleId }, select: { id: true } })
    if (!revision) throw new ValidationError([{ field: 'revision_id', message: `revision_id must be one of this article's revisions; '${input.revision_id}' is not.` }])
  }
  const token = tokenPrefix + randomBytes(32).toString('base64url')
  const id = createId('prv')
  const expiresAt = new Date(now.getTime() + (input.expires_in ?? defaultPreviewSeconds) * 1000)
  const row = await systemDb().$transaction(async (tx) => {
    const created = await tx.previewLink.create({
      data: { id, tenantId, articleId, tokenHash: hashPreviewToken(token), revisionId: input.revision_id ?? null, createdById: actor.user?.id ?? null, createdAt: now, expiresAt },
      include,
    })
    await recordAudit(tx, { tenantId, actorId: actor.user?.id ?? null, action: 'preview_link.created', targetType: 'article', targetId: articleId, metadata: { preview_link_id: id, expires_at: expiresAt.toISOString(), revision_id: input.revision_id ?? null } })
    return created
  })
  return { ...toRecord(row), token, url: previewUrl(actor.tenant.publicSiteUrl, token) }
}

/** The article's links that still work (neither expired nor revoked), newest first. */
export async function listPreviewLinks(actor: Actor, articleId: string, now = new Date()): Promise<PreviewLinkRecord[]> {
  assertCan(actor, 'articles:write')
  const tdb = tenantDb(actor.tenant.id)
  const article = await tdb.article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
  const rows = await tdb.previewLink.findMany({ where: { articleId, revokedAt: null, expiresAt: { gt: now } }, include, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 200 })
  return rows.map(toRecord)
}

/** Stops a link at once; revoking is audited. A link of another article (or newsroom) is a 404. */
export async function revokePreviewLink(actor: Actor, articleId: string, previewLinkId: string, now = new Date()): Promise<void> {
  assertCan(actor, 'articles:write')
  const tenantId = actor.tenant.id
  const link = await tenantDb(tenantId).previewLink.findFirst({ where: { id: previewLinkId, articleId }, select: { id: true, revokedAt: true } })
  if (!link) throw new NotFoundError('preview link', previewLinkId)
  if (link.revokedAt) return
  await systemDb().$transaction(async (tx) => {
    await tx.previewLink.update({ where: { id: link.id }, data: { revokedAt: now } })
    await recordAudit(tx, { tenantId, actorId: actor.user?.id ?? null, action: 'preview_link.revoked', targetType: 'article', targetId: articleId, metadata: { preview_link_id: link.id } })
  })
}

/**
 * What a preview token opens, with no other credential: its one article, as it would be
 * published (the stored, sanitised body; a revision's content when the link names one). An
 * unknown, forged, expired or revoked token opens nothing: null, never the published version.
 */
export async function openPreview(token: string, now = new Date()): Promise<{ article: ArticleRecord; expiresAt: Date } | null> {
  if (!token.startsWith(tokenPrefix)) return null
  const link = await systemDb().previewLink.findUnique({ where: { tokenHash: hashPreviewToken(token) }, include: { article: true } })
  if (!link || link.revokedAt || link.expiresAt <= now || link.article.tenantId !== link.tenantId) return null
  let article: Article = link.article
  if (link.revisionId) {
    const revision = await tenantDb(link.tenantId).articleRevision.findFirst({ where: { id: link.revisionId, articleId: link.articleId } })
    if (!revision) return null
    article = asPublished(article, revision)
  }
  return { article: toArticleRecord(article), expiresAt: link.expiresAt }
}
