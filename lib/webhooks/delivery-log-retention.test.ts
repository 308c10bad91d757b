import { afterEach, describe, expect, it, vi } from 'vitest'
import { deliveryLogRetentionDays } from './delivery-log-retention.ts'

afterEach(() => vi.unstubAllEnvs())

describe('deliveryLogRetentionDays', () => {
  it('is 30 unless the operator sets DELIVERY_LOG_RETENTION_DAYS', () => {
    vi.stubEnv('DELIVERY_LOG_RETENTION_DAYS', undefined)
    expect(deliveryLogRetentionDays()).toBe(30)
    vi.stubEnv('DELIVERY_LOG_RETENTION_DAYS', '7')
    expect(deliveryLogRetentionDays()).toBe(7)
  })

  it('keeps the default for a value that is no period, rather than pruning by an invalid or negative cutoff', () => {
    for (const value of ['', 'thirty', '0', '-5']) {
      vi.stubEnv('DELIVERY_LOG_RETENTION_DAYS', value)
      expect(deliveryLogRetentionDays(), value).toBe(30)
    }
  })
})
