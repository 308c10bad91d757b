import { expect, it } from 'vitest'
import { NewsroomApiError, unwrap } from '../src/index.ts'

// A 429 (or 503) the client gives up on says how long the service asked to wait, so a caller
// can schedule its retry without re-reading the response.
it('a refused request throws a NewsroomApiError exposing Retry-After in seconds', () => {
  const problem = { code: 'rate_limited', detail: 'This token made more than 1000 requests in the current window; retry in 7 s.' }
  const response = new Response(JSON.stringify(problem), { status: 429, headers: { 'Retry-After': '7' } })
  const error = (() => {
    try {
      unwrap({ error: problem, response })
    } catch (thrown) {
      return thrown
    }
  })()
  expect(error).toBeInstanceOf(NewsroomApiError)
  expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 7 })
  expect(new NewsroomApiError(422, { detail: 'Invalid.' }).retryAfter).toBeUndefined()
})
