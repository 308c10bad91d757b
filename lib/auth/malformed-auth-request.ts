import { DomainError } from '../errors.ts'
import { assertInputShape, jsonTextNestsDeeperThan, nestingTooDeep } from '../input-shape.ts'

// The cookie next-auth keeps the address to return to after signing in, on http and https.
const callbackUrlCookies = ['next-auth.callback-url', '__Secure-next-auth.callback-url']

/**
 * What next-auth answers with a 500 ("a problem with the server configuration") although the
 * client sent it: a `callbackUrl` (query or cookie) that is neither a path nor an http(s) URL,
 * and a JSON body that does not parse. Such a request gets a plain 4xx saying what to fix; a
 * bad cookie is cleared with it, so the browser's next try works. Returns null for the rest.
 */
export async function malformedAuthRequest(request: Request): Promise<Response | null> {
  const callbackUrl = new URL(request.url).searchParams.get('callbackUrl')
  if (callbackUrl !== null && callbackUrl !== '' && !isHttpUrl(callbackUrl)) {
    return refusal(400, 'callbackUrl must be a path on this site (/articles) or an http(s) address.')
  }
  const cookies = request.headers.get('cookie') ?? ''
  for (const name of callbackUrlCookies) {
    const value = cookieValue(cookies, name)
    if (value !== undefined && value !== '' && !isHttpUrl(value)) {
      return refusal(400, `The ${name} cookie is not a path or an http(s) address; it has been cleared, so try again.`, {
        'Set-Cookie': `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${name.startsWith('__Secure-') ? '; Secure' : ''}`,
      })
    }
  }
  if (request.method === 'POST' && request.headers.get('content-type')?.includes('application/json')) {
    const bytes = new Uint8Array(await request.clone().arrayBuffer())
    if (jsonTextNestsDeeperThan(bytes)) return refusal(nestingTooDeep().status, nestingTooDeep().message)
    let body: unknown
    try {
      body = bytes.length === 0 ? undefined : JSON.parse(new TextDecoder().decode(bytes))
    } catch (error) {
      return refusal(400, `The body is not valid JSON: ${(error as Error).message}.`)
    }
    try {
      assertInputShape(body)
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      const fields = 'fieldErrors' in error ? ` (${(error.fieldErrors as { field: string; message: string }[]).map((field) => `${field.field}: ${field.message}`).join('; ')})` : ''
      return refusal(error.status, `${error.message}${fields}`)
    }
  }
  return null
}

/** next-auth's own test (core/lib/assert.js): a path, or an absolute http(s) URL. */
function isHttpUrl(url: string): boolean {
  try {
    return /^https?:/.test(new URL(url, url.startsWith('/') ? 'http://localhost' : undefined).protocol)
  } catch {
    return false
  }
}

function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) {
      const raw = rest.join('=')
      try {
        return decodeURIComponent(raw)
      } catch {
        return raw
      }
    }
  }
  return undefined
}

function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers } })
}
