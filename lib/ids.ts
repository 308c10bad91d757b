import { randomBytes } from 'node:crypto'

export type IdPrefix =
  | 'ten' | 'usr' | 'dep' | 'art' | 'trn' | 'tok' | 'whk' | 'evt' | 'dlv' | 'att' | 'mail' | 'aud' | 'req'

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * An opaque identifier such as `art_0k3m9x...`: a time part, so ids created later sort later
 * (handy in logs and as the last tie-breaker of list orders), and 80 random bits.
 */
export function createId(prefix: IdPrefix): string {
  const time = Date.now().toString(36).padStart(9, '0')
  const random = randomBytes(16)
  let suffix = ''
  for (let i = 0; i < 16; i++) suffix += alphabet[random[i]! % 36]
  return `${prefix}_${time}${suffix}`
}
