import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

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
 *
 * Because it outlives sign-out, whoever uses the browser later can read it (DevTools lists
 * HTTP-only cookies) and send it from anywhere. So the HMAC also covers the account's password
 * hash and its credentials-changed time: changing the password, "Sign out all other sessions" and
 * an admin's factor reset (what is done when a laptop is gone) retire every note made before
 * them; and each note has a budget of failures of its own while the account is locked
 * (sign-in-throttle.ts), so one read off a browser cannot be replayed from many addresses.
 */
export const knownBrowserCookie = 'newsroom.known-browser'
const lifetimeSeconds = 180 * 24 * 3600
const accountsPerBrowser = 5

const secret = () => `newsroom known browser\0${process.env.NEXTAUTH_SECRET ?? process.env.AUTH_SECRET ?? ''}`

/**
 * The account a note is for: its id, its password hash (a new password retires older notes) and
 * when its sessions were last ended everywhere or its factors reset (so do those: what a member
 * or an admin does when a laptop is gone, besides or instead of a new password).
 */
export type KnownBrowserAccount = { id: string; passwordHash: string; credentialsChangedAt: Date | null }

/** The columns of users a KnownBrowserAccount is read from. */
export const knownBrowserAccountSelect = { id: true, passwordHash: true, credentialsChangedAt: true } as const

function signature(account: KnownBrowserAccount, expires: number): string {
  return createHmac('sha256', secret())
    .update(`${account.id}.${expires}.${account.passwordHash}.${account.credentialsChangedAt?.getTime() ?? 0}`)
    .digest('base64url')
}

/** The entries of the cookie that are valid notes for `account`. */
function entries(cookieValue: string | undefined, account: KnownBrowserAccount): { userId: string; expires: number; entry: string }[] {
  if (!cookieValue || cookieValue.length > 8_000) return []
  return cookieValue.split('~').flatMap((entry) => {
    const match = /^([A-Za-z0-9_]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(entry)
    if (!match || match[1] !== account.id) return []
    const expires = Number(match[2])
    const expected = Buffer.from(signature(account, expires))
    const given = Buffer.from(match[3]!)
    if (expires * 1000 <= Date.now() || !timingSafeEqual(expected, given)) return []
    return [{ userId: match[1]!, expires, entry }]
  })
}

/**
 * The value of the cookie among a request's Cookie header (node's headers object or a string).
 * Every cookie of that name counts (joined as entries), so one set by a neighbour on the same
 * host name (cookies ignore ports; a sibling subdomain can set one for the parent domain) cannot
 * hide the browser's own; a value that is not valid percent-encoding is skipped, not a failure
 * of the sign-in it came with.
 */
export function knownBrowserCookieValue(cookieHeader: string | string[] | undefined): string | undefined {
  const header = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : cookieHeader
  if (!header) return undefined
  const values: string[] = []
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name !== knownBrowserCookie) continue
    try {
      values.push(decodeURIComponent(value.join('=')))
    } catch {
      // Not ours (we write base64url and dots): ignored.
    }
  }
  return values.length > 0 ? values.join('~') : undefined
}

/**
 * The note, if the browser that sent `cookieValue` completed a sign-in to the account with its
 * current password: a key naming that one note (for its own budget of failures), else null.
 */
export function knownBrowserNote(cookieValue: string | undefined, account: KnownBrowserAccount): string | null {
  const entry = entries(cookieValue, account)[0]
  return entry ? createHash('sha256').update(entry.entry).digest('base64url').slice(0, 32) : null
}

/** Whether the browser that sent `cookieValue` completed a sign-in to the account (with its current password) before. */
export function isKnownBrowser(cookieValue: string | undefined, account: KnownBrowserAccount): boolean {
  return knownBrowserNote(cookieValue, account) !== null
}

/** The cookie's new value once the account signed in from the browser: newest first, the oldest accounts dropped. */
export function rememberedBrowser(cookieValue: string | undefined, account: KnownBrowserAccount, now = Date.now()): { value: string; maxAgeSeconds: number } {
  const expires = Math.floor(now / 1000) + lifetimeSeconds
  // Other accounts' entries are kept as they are (they are checked when those accounts sign in).
  const others = splitEntries(cookieValue).filter((entry) => !entry.startsWith(`${account.id}.`))
  const value = [`${account.id}.${expires}.${signature(account, expires)}`, ...others].slice(0, accountsPerBrowser).join('~')
  return { value, maxAgeSeconds: lifetimeSeconds }
}

function splitEntries(cookieValue: string | undefined): string[] {
  if (!cookieValue || cookieValue.length > 8_000) return []
  return cookieValue.split('~').filter((entry) => /^[A-Za-z0-9_]{1,64}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/.test(entry))
}
