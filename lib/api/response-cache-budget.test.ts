import { afterEach, describe, expect, it } from 'vitest'
import { cachedRead, localResponseCacheBytes } from './response-cache.ts'

// break72: RESPONSE_CACHE_MAX_BYTES as an operator may write it. Number('64MB') is NaN, and
// `total + bytes > NaN` is never true: the process's cache then gave up nothing, and a token
// asking distinct queries (each twice, past the doorkeeper) grew the heap without bound.
const body = 'x'.repeat(100 * 1024)
const flood = async (tenantId: string, count: number) => {
  for (let i = 0; i < count; i++) {
    const produce = async () => ({ body: `${i}${body}`, etag: `"${i}"` })
    await cachedRead(tenantId, `list:q=${i}`, produce, 'g1')
    await cachedRead(tenantId, `list:q=${i}`, produce, 'g1')
  }
}

describe('the response cache budget as an operator sets it', () => {
  afterEach(() => {
    delete process.env.RESPONSE_CACHE_MAX_BYTES
  })

  it.each(['64MB', '1e', 'thirty-two'])("stays within the default 32 MiB when RESPONSE_CACHE_MAX_BYTES is '%s'", async (typed) => {
    process.env.RESPONSE_CACHE_MAX_BYTES = typed
    await flood(`ten_${typed}`, 200) // 200 answers of 200 KiB as kept: 40 MiB
    expect(localResponseCacheBytes()).toBeGreaterThan(0)
    expect(localResponseCacheBytes()).toBeLessThanOrEqual(32 * 1024 * 1024)
  })

  it('holds at most what RESPONSE_CACHE_MAX_BYTES says, even when one answer is larger', async () => {
    process.env.RESPONSE_CACHE_MAX_BYTES = String(150 * 1024)
    await flood('ten_small', 3)
    expect(localResponseCacheBytes()).toBeLessThanOrEqual(150 * 1024)
  })
})
