import { describe, expect, it } from 'vitest'
import { conflictingText, diff3, resolveField, splitBlocks, threeWayMerge } from './three-way-merge.ts'

const form = (fields: Partial<Record<'headline' | 'lede' | 'body' | 'tags', string>>) => ({ headline: 'Harbour reopens', lede: 'After the storm.', body: '<p>One.</p><p>Two.</p><p>Three.</p>', tags: 'local', ...fields })
const merge = (base: ReturnType<typeof form>, mine: ReturnType<typeof form>, theirs: ReturnType<typeof form>) => threeWayMerge(base, mine, theirs, { blockFields: ['body'] })

describe('threeWayMerge: a conflicting save asks only about what both people changed', () => {
  it("keeps my headline and their new paragraph without a question (issue 45: B's paragraph was thrown away)", () => {
    const base = form({})
    const result = merge(base, form({ headline: 'Harbour reopens at last' }), form({ body: '<p>One.</p><p>Two.</p><p>Three.</p><p>Four, added by B.</p>' }))
    expect(result.conflicts).toEqual([])
    expect(result.fields.headline).toEqual({ outcome: 'mine', value: 'Harbour reopens at last' })
    expect(result.fields.body).toEqual({ outcome: 'theirs', value: '<p>One.</p><p>Two.</p><p>Three.</p><p>Four, added by B.</p>' })
    expect(result.fields.lede).toEqual({ outcome: 'unchanged', value: 'After the storm.' })
  })

  it('asks about a field both changed differently, with nothing chosen for the person, and takes a change both made alike', () => {
    const result = merge(form({}), form({ headline: 'Mine', tags: 'local, sea' }), form({ headline: 'Theirs', tags: 'local, sea' }))
    expect(result.conflicts).toEqual(['headline'])
    expect(result.fields.headline).toEqual({ outcome: 'conflict', base: 'Harbour reopens', mine: 'Mine', theirs: 'Theirs' })
    expect(result.fields.tags).toEqual({ outcome: 'same', value: 'local, sea' })
    expect(resolveField(result.fields.headline, 'theirs')).toBe('Theirs')
    expect(resolveField(result.fields.headline, 'mine')).toBe('Mine')
  })

  it('merges the body by paragraph when the two sides changed different paragraphs', () => {
    const result = merge(form({}), form({ body: '<p>One, edited by A.</p><p>Two.</p><p>Three.</p>' }), form({ body: '<p>One.</p><p>Two.</p><p>Three, edited by B.</p>' }))
    expect(result.conflicts).toEqual([])
    expect(result.fields.body).toEqual({ outcome: 'combined', value: '<p>One, edited by A.</p><p>Two.</p><p>Three, edited by B.</p>' })
  })

  it('keeps an insertion by one side next to an edit of the neighbouring paragraph by the other', () => {
    const result = merge(form({}), form({ body: '<p>One.</p><p>Two.</p><p>Inserted by A.</p><p>Three.</p>' }), form({ body: '<p>One.</p><p>Two, edited by B.</p><p>Three.</p>' }))
    expect(result.fields.body).toEqual({ outcome: 'combined', value: '<p>One.</p><p>Two, edited by B.</p><p>Inserted by A.</p><p>Three.</p>' })
  })

  it('asks only about the paragraph both changed, keeping the rest of both sides whichever side is chosen', () => {
    const result = merge(
      form({}),
      form({ body: '<p>One, edited by A.</p><p>Two, A.</p><p>Three.</p>' }),
      form({ body: '<p>One.</p><p>Two, B.</p><p>Three, edited by B.</p>' }),
    )
    expect(result.conflicts).toEqual(['body'])
    expect(conflictingText(result.fields.body, 'mine')).toBe('<p>Two, A.</p>')
    expect(conflictingText(result.fields.body, 'theirs')).toBe('<p>Two, B.</p>')
    expect(resolveField(result.fields.body, 'theirs')).toBe('<p>One, edited by A.</p><p>Two, B.</p><p>Three, edited by B.</p>')
    expect(resolveField(result.fields.body, 'mine')).toBe('<p>One, edited by A.</p><p>Two, A.</p><p>Three, edited by B.</p>')
  })

  it('treats two paragraphs added at the same place as a question, since their order is not known', () => {
    const chunks = diff3(['<p>a</p>'], ['<p>a</p>', '<p>mine</p>'], ['<p>a</p>', '<p>theirs</p>'])
    expect(chunks).toEqual([
      { kind: 'settled', blocks: ['<p>a</p>'] },
      { kind: 'conflict', base: [], mine: ['<p>mine</p>'], theirs: ['<p>theirs</p>'] },
    ])
  })

  it('keeps a deletion by one side and an edit elsewhere by the other', () => {
    expect(diff3(['1', '2', '3'], ['1', '3'], ['1', '2', '3b'])).toEqual([{ kind: 'settled', blocks: ['1', '3b'] }])
  })
})

describe('threeWayMerge: a body with text outside any paragraph (as an integration may write it)', () => {
  it('keeps the spaces between the words and the inline elements when both sides changed different parts', () => {
    const base = { body: 'Ferries run <em>hourly</em> from the quay' }
    const result = threeWayMerge(base, { body: 'Ferries run <em>hourly</em> from the new quay' }, { body: 'Boats run <em>hourly</em> from the quay' }, { blockFields: ['body'] })
    expect(result.conflicts).toEqual([])
    expect(result.fields.body).toEqual({ outcome: 'combined', value: 'Boats run <em>hourly</em> from the new quay' })
  })
})

describe('splitBlocks', () => {
  it('splits top-level elements, keeping nested markup and void elements, and drops whitespace between them', () => {
    expect(splitBlocks('<p>One <b>bold</b></p>\n  <ul><li><p>x</p></li></ul><hr><h2>Head</h2>tail')).toEqual(['<p>One <b>bold</b></p>', '<ul><li><p>x</p></li></ul>', '<hr>', '<h2>Head</h2>', 'tail'])
  })
})
