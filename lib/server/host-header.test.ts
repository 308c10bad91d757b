import { describe, expect, it } from 'vitest'
import { isValidHostHeader } from './host-header.ts'

describe('a Host header', () => {
  const valid = ['api.example.com', '127.0.0.1:3000', '[::1]:8080', 'localhost', 'x:65535']
  const invalid = ['a b', '[', '%', 'x:99999', 'x:0', '', '[1::2::3]', 'host/path']

  it('is judged the same whatever was asked before it, valid or not', () => {
    // Every order of pairs: a remembered valid host must never make an invalid one pass, nor
    // an invalid one make a valid one fail.
    for (const first of [...valid, ...invalid]) {
      for (const second of [...valid, ...invalid]) {
        isValidHostHeader(first)
        expect(isValidHostHeader(second), `${JSON.stringify(second)} after ${JSON.stringify(first)}`).toBe(valid.includes(second))
      }
    }
  })
})
