import { describe, expect, it } from 'vitest'
import { AddressTrail } from '../../components/address-trail.ts'

// The media library keeps its search and open image in the address (components/address-trail.ts).
describe('a page address changed twice before it renders', () => {
  it('keeps both changes: an upload opening its image, then a search sent before the page rendered it', () => {
    const trail = new AddressTrail('')
    expect(trail.next({ media: 'med_1' })).toBe('media=med_1')
    // The editor searches before the page has rendered with the open image.
    expect(trail.next({ q: 'phone', offset: null })).toBe('media=med_1&q=phone')
  })

  it('keeps both changes the other way round: a search, then an upload finishing before the search rendered', () => {
    const trail = new AddressTrail('q=old')
    expect(trail.next({ q: 'new' })).toBe('q=new')
    expect(trail.next({ media: 'med_2' })).toBe('q=new&media=med_2')
  })

  it('follows what the page rendered once its changes have arrived, and a Back or a link over what was asked', () => {
    const trail = new AddressTrail('')
    trail.next({ media: 'med_1' })
    trail.next({ q: 'phone' })
    trail.render('media=med_1')
    expect(trail.next({ offset: '20' })).toBe('media=med_1&q=phone&offset=20')
    trail.render('media=med_1&q=phone&offset=20')
    // Back, to an address none of these asked for.
    trail.render('q=earlier')
    expect(trail.next({ media: 'med_3' })).toBe('q=earlier&media=med_3')
  })
})

describe('a change asked while another is on its way', () => {
  it('a replace asked while a push is on its way is a push (the router drops the push for it)', () => {
    const trail = new AddressTrail('q=harbour')
    expect(trail.how('push')).toBe('push')
    trail.next({ credit: 'port' }, 'push')
    expect(trail.how('replace')).toBe('push')
    trail.next({ media: 'med_1' }, 'push')
    trail.render('q=harbour&credit=port&media=med_1')
    expect(trail.how('replace')).toBe('replace')
  })

  it('asking for the address shown again drops what was asked before it: a Back to that search builds on what is shown', () => {
    const trail = new AddressTrail('q=tern')
    trail.next({ q: 'gull' }, 'push')
    expect(trail.next({ q: 'tern' }, 'push')).toBe('q=tern')
    expect(trail.how('replace')).toBe('replace')
    // Back, to the entry of the gull search.
    trail.render('q=gull')
    expect(trail.next({ media: 'med_1' })).toBe('q=gull&media=med_1')
  })
})
