import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * "This browser has signed in to this account before" (OWASP's device cookie): the way a member
 * without a second factor still signs in while strangers' failures have locked the account.
 *
 * The lock (sign-in-throttle.ts) refuses the addresses that failed; from any other address a
 * member without a second factor gets only a few tries per window, shared with everyone else,
 * so attackers spread over many addresses could still use those up. A browser that completed a
 * sign-in to the account carries a signed note of it, and for that browser the lock's few tries
 * do not apply: the password is checked as always (its own address's budget still counts).
 *
 * The cookie holds one entry per account signed in from the browser (the last few), each
 * `<user id>.<expiry, epoch seconds>.<HMAC>`; it says nothing an onlooker could use, and it
 * cannot be made for another account without the server's secret. It outlives sign-out on
 * purpose: that is when it is needed.
 */
export const knownBrowserCookie = 'newsroom.known-browser'
const lifetimeSeconds = 180 * 24 * 3600
const accountsPerBrowser = 5

const secret = () => `newsroom known browser\0${process.env.NEXTAUTH_SECRET ?? process.env.AUTH_SECRET ?? ''}`

function signature(userId: string, expires: number): string {
  return createHmac('sha256', secret()).update(`${userId}.${expires}`).digest('base64url')
}

function entries(cookieValue: string | undefined): { userId: string; expires: number; entry: string }[] {
  if (!cookieValue || cookieValue.length > 2_000) return []
  return cookieValue.split('~').flatMap((entry) => {
    const match = /^([A-Za-z0-9_]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(entry)
    if (!match) return []
    const expires = Number(match[2])
    const expected = Buffer.from(signature(match[1]!, expires))
    const given = Buffer.from(match[3]!)
    if (expires * 1000 <= Date.now() || !timingSafeEqual(expected, given)) return []
    return [{ userId: match[1]!, expires, entry }]
  })
}

/** The value of the cookie among a request's Cookie header (node's headers object or a string). */
export function knownBrowserCookieValue(cookieHeader: string | string[] | undefined): string | undefined {
  const header = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : cookieHeader
  if (!header) return undefined
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === knownBrowserCookie) return decodeURIComponent(value.join('='))
  }
  return undefined
}

/** Whether the browser that sent `cookieValue` completed a sign-in to `userId` before. */
export function isKnownBrowser(cookieValue: string | undefined, userId: string): boolean {
  return entries(cookieValue).some((entry) => entry.userId === userId)
}

/** The cookie's new value once `userId` signed in from the browser: newest first, the oldest accounts dropped. */
export function rememberedBrowser(cookieValue: string | undefined, userId: string, now = Date.now()): { value: string; maxAgeSeconds: number } {
  const expires = Math.floor(now / 1000) + lifetimeSeconds
  const others = entries(cookieValue).filter((entry) => entry.userId !== userId).map((entry) => entry.entry)
  const value = [`${userId}.${expires}.${signature(userId, expires)}`, ...others].slice(0, accountsPerBrowser).join('~')
  return { value, maxAgeSeconds: lifetimeSeconds }
}
