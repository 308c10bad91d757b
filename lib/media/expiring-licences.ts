import { tenantSql } from '../tenancy/tenant-sql.ts'
import { licenceWarningDays } from './media-rights.ts'

/** An image a live article shows whose licence ends soon or has ended (withheld), and the live articles showing it. */
export type ExpiringLicence = {
  mediaId: string
  filename: string
  credit: string | null
  expiresAt: Date
  /** Ended: the site no longer shows it (withheld); the articles still name it until someone replaces it. */
  expired: boolean
  articles: { id: string; headline: string }[]
}

type Row = { mediaId: string; filename: string; credit: string | null; expiresAt: Date; articles: { id: string; headline: string }[]; total: number }

/**
 * The desk's list of images in live articles whose licence ends within licenceWarningDays (7)
 * or has already ended, soonest first, with the live articles showing each: what an editor has
 * to replace or renew before (or since) the site stops showing it. `authorId` narrows it to the
 * images of one writer's own articles. One query over articles_media_ids_idx and
 * media_tenant_id_expires_at_idx.
 */
export async function listExpiringLicences(tenantId: string, { now, authorId, limit }: { now: Date; authorId?: string; limit: number }): Promise<{ total: number; items: ExpiringLicence[] }> {
  const until = new Date(now.getTime() + licenceWarningDays * 86_400_000)
  const rows = await tenantSql(tenantId).rows<Row>(
    `SELECT m.id AS "mediaId", m.filename, m.credit, m.expires_at AS "expiresAt",
            json_agg(json_build_object('id', a.id, 'headline', a.headline) ORDER BY a.published_at DESC, a.id) AS articles,
            count(*) OVER ()::int AS total
     FROM media m
     JOIN articles a ON a.tenant_id = m.tenant_id AND a.status = 'published' AND a.media_ids @> ARRAY[m.id]
     WHERE m.tenant_id = $1 AND m.expires_at <= $2 AND ($3::text IS NULL OR a.author_id = $3::text)
     GROUP BY m.id
     ORDER BY m.expires_at, m.id
     LIMIT $4`,
    [until, authorId ?? null, limit],
  )
  return {
    total: rows[0]?.total ?? 0,
    items: rows.map(({ total: _total, expiresAt, ...row }) => ({ ...row, expiresAt: new Date(expiresAt), expired: new Date(expiresAt) <= now })),
  }
}
