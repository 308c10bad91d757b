import { afterEach, describe, expect, it } from 'vitest'
import { readSignedCursor, signCursor } from '../../lib/signed-cursor.ts'

// The signing key is derived once per secret (lib/signed-cursor.ts): a cursor must still be
// refused after the secret changes, and accepted again under the secret that signed it.

const original = { cursor: process.env.CURSOR_SECRET, nextAuth: process.env.NEXTAUTH_SECRET }
afterEach(() => {
  if (original.cursor === undefined) delete process.env.CURSOR_SECRET
  else process.env.CURSOR_SECRET = original.cursor
  if (original.nextAuth === undefined) delete process.env.NEXTAUTH_SECRET
  else process.env.NEXTAUTH_SECRET = original.nextAuth
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

  it('take an empty CURSOR_SECRET as unset: cursors are signed with NEXTAUTH_SECRET, not with an empty key anyone can sign with', () => {
    process.env.NEXTAUTH_SECRET = 'the service secret'
    process.env.CURSOR_SECRET = ''
    const cursor = signCursor({ position: 50 })
    // What a client could make if the key were the empty secret's.
    delete process.env.NEXTAUTH_SECRET
    const forged = signCursor({ position: 50 })
    process.env.NEXTAUTH_SECRET = 'the service secret'
    expect(forged).not.toBe(cursor)
    expect(() => readSignedCursor(forged)).toThrow()
    expect(readSignedCursor(cursor)).toEqual({ position: 50 })
  })
})
