import { afterEach, describe, expect, it } from 'vitest'
import { readSignedCursor, signCursor } from '../../lib/signed-cursor.ts'

// The signing key is derived once per secret (lib/signed-cursor.ts): a cursor must still be
// refused after the secret changes, and accepted again under the secret that signed it.

const original = process.env.CURSOR_SECRET
afterEach(() => {
  if (original === undefined) delete process.env.CURSOR_SECRET
  else process.env.CURSOR_SECRET = original
})

describe('signed cursors', () => {
  it('follow the secret: one signed under another secret is refused', () => {
    process.env.CURSOR_SECRET = 'first secret'
    const cursor = signCursor({ position: 50 })
    expect(readSignedCursor(cursor)).toEqual({ position: 50 })
    process.env.CURSOR_SECRET = 'second secret'
    expect(() => readSignedCursor(cursor)).toThrow()
    expect(readSignedCursor(signCursor({ position: 100 }))).toEqual({ position: 100 })
    process.env.CURSOR_SECRET = 'first secret'
    expect(readSignedCursor(cursor)).toEqual({ position: 50 })
  })
})
