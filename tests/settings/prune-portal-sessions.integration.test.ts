import { beforeAll, describe, expect, it } from 'vitest'
import { prunePortalSessions } from '../../lib/auth/prune-portal-sessions.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Every sign-in leaves a portal_sessions row; the nightly prune removes those that finished
// (ended, or lapsed unused) more than 30 days ago, and never a session someone is still using.

const now = new Date('2026-11-26T04:17:00.000Z')
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000)

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant()
})

async function session(id: string, fields: { lastSeenAt: Date; endedAt?: Date }) {
  const user = newsroom.users.editor
  await db.portalSession.create({ data: { id, tenantId: newsroom.tenant.id, userId: user.id, createdAt: fields.lastSeenAt, lastSeenAt: fields.lastSeenAt, endedAt: fields.endedAt ?? null, endedReason: fields.endedAt ? 'signed_out' : null } })
}

describe('pruning portal sessions', () => {
  it('deletes sessions that ended or lapsed more than 30 days ago and keeps every other', async () => {
    await session('ses_prune_live', { lastSeenAt: daysAgo(0.01) })
    await session('ses_prune_ended_recently', { lastSeenAt: daysAgo(10), endedAt: daysAgo(10) })
    await session('ses_prune_ended_long_ago', { lastSeenAt: daysAgo(31), endedAt: daysAgo(31) })
    await session('ses_prune_lapsed_long_ago', { lastSeenAt: daysAgo(40) })
    await session('ses_prune_lapsed_recently', { lastSeenAt: daysAgo(20) })

    expect(await prunePortalSessions(now)).toEqual({ sessions: 2 })

    const left = await db.portalSession.findMany({ where: { id: { startsWith: 'ses_prune_' } }, select: { id: true }, orderBy: { id: 'asc' } })
    expect(left.map((row) => row.id)).toEqual(['ses_prune_ended_recently', 'ses_prune_lapsed_recently', 'ses_prune_live'])
    expect(await prunePortalSessions(now)).toEqual({ sessions: 0 })
  })
})
