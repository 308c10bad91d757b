import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../db/client.ts'
import { createId } from '../ids.ts'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { changeCurrentVersion } from './change-current-version.ts'

// Update, transition and cancelling a schedule all go through this: a change that loses a race
// is judged again against the new version, unless the caller pinned the version it saw.

let newsroom: TestTenant
let articleId: string

beforeAll(async () => {
  newsroom = await createTestTenant()
  articleId = createId('art')
  await db.article.create({ data: { id: articleId, tenantId: newsroom.tenant.id, headline: 'Raced', authorId: newsroom.users.editor.id } })
})

/** Someone else changes the article between our read and our write. */
const changeBehindOurBack = () => db.article.update({ where: { id: articleId }, data: { version: { increment: 1 } } })

describe('changeCurrentVersion', () => {
  it('re-reads and re-judges after losing a race, and succeeds on the new version', async () => {
    const seen: number[] = []
    const result = await changeCurrentVersion(newsroom.tenant.id, articleId, undefined, { userId: null }, async (current) => {
      seen.push(current.version)
      if (seen.length === 1) {
        await changeBehindOurBack()
        return undefined
      }
      return 'applied'
    })
    expect(result).toBe('applied')
    expect(seen).toEqual([seen[0], seen[0]! + 1])
  })

  it('refuses with 412 when the caller pinned a version that is no longer current, or that changed during the write', async () => {
    const { version } = await db.article.findUniqueOrThrow({ where: { id: articleId } })
    await expect(changeCurrentVersion(newsroom.tenant.id, articleId, version - 1, { userId: null }, async () => 'never')).rejects.toMatchObject({ status: 412 })
    let applied = 0
    // A change that left no history row or revision is still told: when, and the version now.
    await expect(
      changeCurrentVersion(newsroom.tenant.id, articleId, version, { userId: null }, async () => {
        applied++
        await changeBehindOurBack()
        return undefined
      }),
    ).rejects.toMatchObject({ status: 412, message: expect.stringMatching(new RegExp(`after the version you saw \\(${version}\\): it was changed at \\d\\d:\\d\\d UTC.*at version ${version + 1}\\.`)) })
    expect(applied).toBe(1)
  })

  it('keeps re-judging a blind change through many lost races, and 404s an unknown or foreign article', async () => {
    let rounds = 0
    const result = await changeCurrentVersion(newsroom.tenant.id, articleId, undefined, { userId: null }, async () => {
      rounds++
      if (rounds <= 10) {
        await changeBehindOurBack()
        return undefined
      }
      return 'landed'
    })
    expect(result).toBe('landed')
    expect(rounds).toBe(11)
  })

  it('answers 409 concurrent_update only when a blind change loses every one of its rounds', async () => {
    let tries = 0
    await expect(
      changeCurrentVersion(newsroom.tenant.id, articleId, undefined, { userId: null }, async () => {
        tries++
        await changeBehindOurBack()
        return undefined
      }),
    ).rejects.toMatchObject({ status: 409, code: 'concurrent_update' })
    expect(tries).toBe(200)
    const other = await createTestTenant()
    await expect(changeCurrentVersion(other.tenant.id, articleId, undefined, { userId: null }, async () => 'never')).rejects.toMatchObject({ status: 404 })
  })
})
