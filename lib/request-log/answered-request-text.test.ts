import { describe, expect, it } from 'vitest'
import { answeredRequestText, storedText } from './record-api-request.ts'
import { apiRequestEntry, type AnsweredRequest } from './request-log-entry.ts'

const base: AnsweredRequest = {
  id: 'req_0000000001abcdef',
  tenantId: 'ten_1',
  tokenId: 'tok_1',
  method: 'GET',
  route: '/v1/articles/{id}',
  url: new URL('http://127.0.0.1/v1/articles/art_1'),
  forwardedFor: '10.0.0.1',
  status: 200,
  problemCode: null,
  durationMs: 2.5,
  arrivedAt: 1_764_400_000_123,
}

describe('an answered request’s stored text', () => {
  it('is what its entry is stored as', () => {
    const cases: AnsweredRequest[] = [
      base,
      { ...base, forwardedFor: null, durationMs: 0.49, status: 404, problemCode: 'not_found' },
      { ...base, url: new URL('http://127.0.0.1/v1/articles?z=1&a=2&a=3&%00k=1&' + 'q'.repeat(80) + '=1'), forwardedFor: 'evil\0, 1.2.3.4, "quoted"\\', durationMs: -0.2 },
      { ...base, route: '/v1/\0odd', method: 'POST', status: 429, problemCode: 'rate_limited', durationMs: 1234.5 },
      { ...base, url: new URL('http://127.0.0.1/v1/articles?' + Array.from({ length: 30 }, (_, i) => `k${i}=x`).join('&')), forwardedFor: ' 2001:db8::1 ' },
    ]
    for (const request of cases) expect(answeredRequestText(request)).toBe(storedText(apiRequestEntry(request)))
  })
})
