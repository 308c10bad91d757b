import { describe, expect, it } from 'vitest'
import { htmlToText, wordDiff } from './word-diff.ts'

const render = (before: string, after: string) =>
  wordDiff(before, after)
    .map((part) => (part.kind === 'same' ? part.text : part.kind === 'removed' ? `[-${part.text}]` : `{+${part.text}}`))
    .join('')

describe('wordDiff', () => {
  it('marks replaced, removed and added words, keeping the rest whole', () => {
    expect(render('The council voted 7 to 2 today.', 'The council voted 6 to 3 today.')).toBe('The council voted [-7]{+6} to [-2]{+3} today.')
    expect(render('Boats are back.', 'Boats and ferries are back.')).toBe('Boats {+and ferries }are back.')
    expect(render('Boats and ferries are back.', 'Boats are back.')).toBe('Boats [-and ferries ]are back.')
    expect(render('The ferries are back.', 'The ferries are back, and so are the tourists.')).toBe('The ferries are back{+, and so are the tourists}.')
    expect(render('Harbour story', 'Harbour story updated')).toBe('Harbour story{+ updated}')
  })

  it('gives back both texts exactly', () => {
    const before = 'one two  three\nfour five'
    const after = 'zero two three\nfour six seven'
    const parts = wordDiff(before, after)
    expect(parts.filter((part) => part.kind !== 'added').map((part) => part.text).join('')).toBe(before)
    expect(parts.filter((part) => part.kind !== 'removed').map((part) => part.text).join('')).toBe(after)
  })

  it('says nothing changed for identical texts, and handles empty ones', () => {
    expect(wordDiff('same words', 'same words')).toEqual([{ kind: 'same', text: 'same words' }])
    expect(wordDiff('', 'new text')).toEqual([{ kind: 'added', text: 'new text' }])
    expect(wordDiff('old text', '')).toEqual([{ kind: 'removed', text: 'old text' }])
  })

  it('falls back to one removal and one addition for huge rewrites', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i}`).join(' ')
    const after = Array.from({ length: 3000 }, (_, i) => `b${i}`).join(' ')
    expect(wordDiff(before, after).map((part) => part.kind)).toEqual(['removed', 'added'])
  })
})

describe('htmlToText', () => {
  it('drops markup and decodes entities', () => {
    expect(htmlToText('<p>Fish &amp; <strong>chips</strong></p><p>Second <a href="x">line</a></p>')).toBe('Fish & chips\nSecond line')
  })
})
