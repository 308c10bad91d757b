import { describe, expect, it } from 'vitest'
import { malformedAuthRequest } from './malformed-auth-request.ts'

const at = (path: string, init: RequestInit = {}) => malformedAuthRequest(new Request(`http://127.0.0.1:3000/api/auth/${path}`, init))

describe('requests next-auth would answer 500 to', () => {
  it.each(['%00', '%ED%A0%80', '%FF', 'foo', 'javascript:alert(1)', 'ftp://x.example/'])('a callbackUrl of %s is a 400 saying what it must be', async (value) => {
    const answer = await at(`session?callbackUrl=${value}`)
    expect(answer?.status).toBe(400)
    expect(await answer!.text()).toContain('callbackUrl must be a path on this site')
  })

  it('a bad callback-url cookie is a 400 that clears it', async () => {
    const answer = await at('session', { headers: { cookie: 'a=b; next-auth.callback-url=%00' } })
    expect(answer?.status).toBe(400)
    expect(answer!.headers.get('set-cookie')).toMatch(/^next-auth\.callback-url=; Path=\/; Max-Age=0/)
  })

  it.each([
    ['not JSON', '{"csrfToken":', 400, 'not valid JSON'],
    ['nested too deep', '['.repeat(5_000) + ']'.repeat(5_000), 422, 'more than 64 levels deep'],
    ['a lone surrogate', '{"data":{"name":"\\ud800"}}', 422, 'data.name: The text contains a lone UTF-16 surrogate (\\ud800)'],
  ])('a JSON body %s is a %i', async (_, body, status, message) => {
    const answer = await at('callback/credentials', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(answer?.status).toBe(status)
    expect(await answer!.text()).toContain(message)
  })

  it('passes what next-auth handles itself, body unread', async () => {
    expect(await at('session?callbackUrl=%2Farticles')).toBeNull()
    expect(await at('signin?callbackUrl=https%3A%2F%2Fnews.example%2F')).toBeNull()
    const form = new Request('http://127.0.0.1:3000/api/auth/callback/credentials', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a&password=b' })
    expect(await malformedAuthRequest(form)).toBeNull()
    expect(await form.text()).toBe('email=a&password=b')
    const json = new Request('http://127.0.0.1:3000/api/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"csrfToken":"x"}' })
    expect(await malformedAuthRequest(json)).toBeNull()
    expect(await json.json()).toEqual({ csrfToken: 'x' })
  })
})
