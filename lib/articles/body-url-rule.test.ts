import { describe, expect, it } from 'vitest'
import { linkAddressProblem } from './body-url-rule'
import { sanitizeBody } from './sanitize-body'

describe('the Link button checks an address by the body allow-list', () => {
  it.each(['https://example.com/a?b=1', 'http://example.com', 'mailto:desk@example.com', 'tel:+441234567', '/politics/vote', '#section', '../other'])(
    '%s is accepted, and the body keeps it',
    (address) => {
      expect(linkAddressProblem(address)).toBeNull()
      expect(sanitizeBody(`<p><a href="${address}">x</a></p>`)).toContain(`href="${address.replace(/&/g, '&amp;')}"`)
    },
  )

  it.each([
    ['javascript:alert(1)', /javascript: link is removed/],
    ['JaVaScRiPt:alert(1)', /javascript: link is removed/],
    ['data:text/html,hi', /data: link is removed/],
    ['ftp://files.example/x', /ftp: link is removed/],
    ['//cdn.example/x', /Start the address with https:\/\//],
    ['example.com/story', /Did you mean https:\/\/example\.com\/story\?/],
    ['', /Enter the address/],
  ])('%s is refused, saying what to write instead', (address, words) => {
    expect(linkAddressProblem(address)).toMatch(words)
  })

  it('what it refuses for its scheme the body drops', () => {
    for (const address of ['javascript:alert(1)', 'data:text/html,hi', 'ftp://files.example/x', '//cdn.example/x']) {
      expect(sanitizeBody(`<p><a href="${address}">x</a></p>`)).not.toContain('href')
    }
  })
})
