import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { deepOffset } from '../../lib/articles/list-articles.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { closeRedis, getRedis } from '../../lib/redis.ts'
import { responseCacheTtlMs } from '../../lib/api/response-cache.ts'
import { deepFeedNewsroom } from '../support/changes-feed.ts'
import { testRedisUrl } from '../support/test-env.ts'

// break50b: the changes feed's deep-offset marks (lib/articles/changes-feed.ts) are kept per
// process under the article generation with no expiry. Every other cache keyed on that
// generation (the response cache, the list totals) is bounded by a 30 s TTL, because an advance
// can be lost: Redis unreachable for the writer (generation-counter.ts: incr(...).catch(report)
// — the write is still acknowledged), or a crash between commit and INCR. When that happens the
// marks go on being used for as long as the newsroom has no further write, and a sync client
// walking the feed by offset is given pages that skip or repeat articles.

beforeAll(() => {
  process.env.REDIS_URL = testRedisUrl
})

afterAll(async () => {
  vi.useRealTimers()
  await closeRedis()
  delete process.env.REDIS_URL
})

describe('the changes feed deep by offset after a lost generation advance', () => {
  it('is exact again once the time the other generation caches are bounded by has passed', async () => {
    const { newsroom: deep, counted, feed } = await deepFeedNewsroom(deepOffset + 40)
    const offset = deepOffset + 5
    const first = await feed(offset)
    expect(first).toEqual(await counted(offset, 20))

    // An editor saves an early article while the INCR does not reach Redis (a blip, a failover):
    // the write commits and is acknowledged.
    const moved = (await counted(3, 1))[0]!
    // The advance is one script on the generation's key (generation-counter.ts): that command fails.
    const redis = getRedis()!
    const send = redis.sendCommand.bind(redis)
    let advancesLost = 0
    const lose = vi.spyOn(redis, 'sendCommand').mockImplementation((command) => {
      const advance = (command.name === 'evalsha' || command.name === 'eval') && command.args.some((arg) => String(arg).includes('article-generation'))
      if (!advance || advancesLost > 0) return send(command)
      advancesLost++
      // The client answers a script's caller through the command's own promise.
      command.reject(new Error('Connection is closed.'))
      return command.promise
    })
    await updateArticle(deep.actor('editor'), moved, { headline: 'Moved to the end of the feed' }, { overrideLock: true })
    expect(advancesLost).toBe(1)
    lose.mockRestore()

    // Well past the 30 s every other generation-keyed cache is bounded by.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + responseCacheTtlMs + 5_000 })
    const truth = await counted(offset, 20)
    expect(truth).not.toEqual(first) // the save moved an article from before the page to the feed's end
    expect(await feed(offset)).toEqual(truth)
  }, 60_000)
})
