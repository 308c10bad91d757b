import { addressAllowed, displayAddress, parseRange, type AddressRange } from '../security/cidr.ts'

/**
 * What limits a key beyond its scopes: when it expires, where requests may come from, and, for
 * a secret a roll replaced, until when that secret works. Kept in the cached principal and
 * judged against each request's clock and address, so a key stops at its expiry to the
 * millisecond whatever the cache holds.
 */
export type TokenBounds = {
  /** A revoked key is still looked up, so the refusals of its later requests land in its own request log. */
  revokedAt: number | null
  expiresAt: number | null
  /** Null when the key admits every address. */
  allowedRanges: AddressRange[] | null
  allowedAddresses: string[]
  /** Set when the request's secret is one a roll replaced. */
  replacedSecret: { rolledAt: number; worksUntil: number } | null
}

export function tokenBounds(
  row: { expiresAt: Date | null; allowedAddresses: string[]; revokedAt?: Date | null },
  replaced: { rolledAt: Date | null; worksUntil: Date | null } | null,
): TokenBounds {
  // Entries were validated when stored; one that no longer parses admits nothing rather than everything.
  const ranges = row.allowedAddresses.flatMap((entry) => {
    const range = parseRange(entry)
    return 'error' in range ? [] : [range]
  })
  return {
    revokedAt: row.revokedAt?.getTime() ?? null,
    expiresAt: row.expiresAt?.getTime() ?? null,
    allowedRanges: row.allowedAddresses.length > 0 ? ranges : null,
    allowedAddresses: row.allowedAddresses,
    replacedSecret: replaced ? { rolledAt: replaced.rolledAt?.getTime() ?? 0, worksUntil: replaced.worksUntil?.getTime() ?? 0 } : null,
  }
}

export type TokenRefusal = { code: 'unauthenticated' | 'ip_not_allowed'; detail: string }

/** Why this request may not use the key now, or null when it may. */
export function tokenRefusal(bounds: TokenBounds, address: string, now = Date.now()): TokenRefusal | null {
  if (bounds.revokedAt !== null) {
    return {
      code: 'unauthenticated',
      detail: `This API key was revoked at ${new Date(bounds.revokedAt).toISOString()}. Create a new key in Settings → API Keys.`,
    }
  }
  if (bounds.expiresAt !== null && now >= bounds.expiresAt) {
    return {
      code: 'unauthenticated',
      detail: `This API key expired at ${new Date(bounds.expiresAt).toISOString()}. Create a new key in Settings → API Keys (and choose a later expiry, or none).`,
    }
  }
  if (bounds.replacedSecret && now >= bounds.replacedSecret.worksUntil) {
    return {
      code: 'unauthenticated',
      detail:
        `This secret was replaced when its key was rolled at ${new Date(bounds.replacedSecret.rolledAt).toISOString()} and stopped working at ` +
        `${new Date(bounds.replacedSecret.worksUntil).toISOString()}. Use the key's new secret.`,
    }
  }
  if (bounds.allowedRanges && !addressAllowed(bounds.allowedRanges, address)) {
    return {
      code: 'ip_not_allowed',
      // The allowed ranges are not named: they map the newsroom's network for whoever holds a
      // leaked key. The admin sees them in Settings → API Keys; the request log keeps the refusal.
      detail: `Requests from ${displayAddress(address)} may not use this API key: the key is limited to other addresses. Send it from an allowed address, or have an admin of the newsroom add this one to the key's allowlist.`,
    }
  }
  return null
}
