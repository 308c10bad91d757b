import { beforeAll, describe, expect, it } from 'vitest'
import { loadSessionMember, sessionIdleLimitMs, startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The read every portal request makes (the jwt callback): the member and newsroom of a live
// session, or null, so an ended session, an idle one or a deactivated member stops at once.

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant()
})

describe('loadSessionMember', () => {
  it('answers a live session with its member and the newsroom they act in', async () => {
    const user = newsroom.users.editor
    const sessionId = await startPortalSession({ id: user.id, tenantId: newsroom.tenant.id }, { userAgent: 'test', address: '203.0.113.9' }, new Date())
    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id } })
    const tenant = await db.tenant.findUniqueOrThrow({ where: { id: newsroom.tenant.id } })
    const session = await db.portalSession.findUniqueOrThrow({ where: { id: sessionId } })
    expect(await loadSessionMember(sessionId, user.id)).toEqual({
      member: {
        id: user.id, email: stored.email, name: stored.name, role: 'editor', tenantId: tenant.id, tenantName: tenant.name,
        tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl },
      },
      session: { id: sessionId, reauthenticatedAt: session.reauthenticatedAt },
      twoFactor: {
        policy: { twoFactorPolicy: tenant.twoFactorPolicy, twoFactorGraceDays: tenant.twoFactorGraceDays, twoFactorPolicyChangedAt: tenant.twoFactorPolicyChangedAt,
          ssoSecondFactor: tenant.ssoSecondFactor, adminsNeedPortalFactor: tenant.adminsNeedPortalFactor },
        memberSince: stored.createdAt,
      },
      beside: null,
    })
  })

  it('reads what a route asks beside the session in the same statement, only in the session\'s own newsroom', async () => {
    const user = newsroom.users.writer
    const sessionId = await startPortalSession({ id: user.id, tenantId: newsroom.tenant.id }, {}, new Date())
    const other = await createTestTenant()
    const own = await db.article.create({ data: { id: createId('art'), tenantId: newsroom.tenant.id, headline: 'Own newsroom', authorId: user.id } })
    const foreign = await db.article.create({ data: { id: createId('art'), tenantId: other.tenant.id, headline: 'Elsewhere', authorId: other.users.writer.id } })
    const headlineOf = (articleId: string) => ({
      name: 'test-headline',
      query: (newsroomId: string) => `SELECT headline FROM articles WHERE tenant_id = ${newsroomId} AND id = $2`,
      values: [articleId],
    })
    expect((await loadSessionMember<{ headline: string }>(sessionId, user.id, new Date(), headlineOf(own.id)))?.beside).toEqual({ headline: 'Own newsroom' })
    const asked = await loadSessionMember(sessionId, user.id, new Date(), headlineOf(foreign.id))
    expect(asked?.member.id).toBe(user.id)
    expect(asked?.beside).toBeNull()
  })

  it('answers null for an unknown session, another member\'s, an ended one, an idle one and a deactivated member\'s', async () => {
    const user = newsroom.users.writer
    const sessionId = await startPortalSession({ id: user.id, tenantId: newsroom.tenant.id }, {}, new Date())
    expect(await loadSessionMember('ses_unknown', user.id)).toBeNull()
    expect(await loadSessionMember(sessionId, newsroom.users.editor.id)).toBeNull()
    const lastSeen = (await db.portalSession.findUniqueOrThrow({ where: { id: sessionId } })).lastSeenAt
    expect(await loadSessionMember(sessionId, user.id, new Date(lastSeen.getTime() + sessionIdleLimitMs + 1))).toBeNull()
    expect(await loadSessionMember(sessionId, user.id)).not.toBeNull()

    await db.user.update({ where: { id: user.id }, data: { active: false } })
    expect(await loadSessionMember(sessionId, user.id)).toBeNull()
    await db.user.update({ where: { id: user.id }, data: { active: true } })
    await db.portalSession.update({ where: { id: sessionId }, data: { endedAt: new Date(), endedReason: 'signed_out' } })
    expect(await loadSessionMember(sessionId, user.id)).toBeNull()
  })
})
