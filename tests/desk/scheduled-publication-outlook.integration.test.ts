import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { scheduledPublicationOutlook } from '../../lib/articles/scheduled-publication-outlook.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { queueHandOffSettled } from '../../lib/events/queue-hand-off.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// Issue 45, point 5: a scheduled publication runs only through the event queue. Whether it will
// run is known when the editor schedules, so the schedule says so then, and the desk never lists
// such a story as going live.

const member = (tenant: TestTenant, role: 'admin' | 'editor' | 'writer') => {
  const actor = tenant.actor(role)
  return { ...actor, user: actor.user! }
}
const ids = (items: { id: string }[]) => items.map((item) => item.id)

async function scheduleIn(tenant: TestTenant, headline: string, inMs: number) {
  const editor = member(tenant, 'editor')
  const article = await createArticle(editor, { headline, status: 'in-review' })
  await transitionArticle(editor, article.id, { to_state: 'approved' })
  return transitionArticle(editor, article.id, { to_state: 'published', publish_at: new Date(Date.now() + inMs).toISOString() })
}

let inngest: Awaited<ReturnType<typeof startFakeInngest>>

beforeAll(async () => {
  inngest = await startFakeInngest({ port: 6231 })
})

afterAll(async () => {
  await inngest.stop()
  vi.unstubAllEnvs()
})

describe('a schedule with no event queue configured', () => {
  beforeAll(() => stubEnv({ INNGEST_DEV: undefined, INNGEST_EVENT_KEY: undefined }))

  it('says when scheduling that it will not go live by itself', async () => {
    const tenant = await createTestTenant()
    const outcome = await scheduleIn(tenant, 'Budget vote tomorrow', 3_600_000)
    expect(outcome.scheduled).toBe(true)
    expect(outcome.scheduleWarning).toMatch(/No event queue \(Inngest\) is configured, so scheduled publications do not run: a scheduled article will not go live by itself/)
    expect(scheduledPublicationOutlook()).toMatchObject({ runs: false, queue: 'not_configured' })
  })

  it('lists it on the desk as will not go live by itself, with why, and never under going live; a schedule days ahead too', async () => {
    const tenant = await createTestTenant()
    const soon = await scheduleIn(tenant, 'Ferry strike ends', 3_600_000)
    const later = await scheduleIn(tenant, 'Harbour festival programme', 3 * 86_400_000)
    const desk = await readDesk(member(tenant, 'editor'))
    expect(ids(desk.willNotGoLive!.items)).toEqual([soon.article.id, later.article.id])
    expect(desk.willNotGoLive!.reason).toMatch(/will not go live by itself/)
    expect(desk.upcoming!.items).toEqual([])
    // A writer has no schedules to decide on: neither list is theirs.
    const writerDesk = await readDesk(member(tenant, 'writer'))
    expect(writerDesk.willNotGoLive).toBeUndefined()
    expect(writerDesk.upcoming).toBeUndefined()
  })
})

describe('a schedule with an event queue that takes events', () => {
  beforeAll(() => stubEnv({ INNGEST_DEV: inngest.url }))

  it('says nothing against it, and the desk lists it as going live within 24 hours', async () => {
    const tenant = await createTestTenant()
    const outcome = await scheduleIn(tenant, 'Council meets at noon', 3_600_000)
    await queueHandOffSettled()
    expect(outcome.scheduleWarning).toBeNull()
    const desk = await readDesk(member(tenant, 'editor'))
    expect(ids(desk.upcoming!.items)).toEqual([outcome.article.id])
    expect(desk.willNotGoLive).toBeUndefined()
  })

  it('once the queue cannot be reached, says so when scheduling and on the desk', async () => {
    const tenant = await createTestTenant()
    await inngest.stop()
    // The first hand-off after the queue went away fails: from then on this process knows.
    await scheduleIn(tenant, 'Bridge closure notice', 7_200_000)
    await queueHandOffSettled()
    const outcome = await scheduleIn(tenant, 'Tram works next week', 3_600_000)
    expect(outcome.scheduleWarning).toMatch(/The event queue \(Inngest\) is unreachable/)
    const desk = await readDesk(member(tenant, 'editor'))
    expect(desk.willNotGoLive!.items.map((item) => item.headline)).toEqual(['Tram works next week', 'Bridge closure notice'])
    expect(desk.upcoming!.items).toEqual([])
  })
})
