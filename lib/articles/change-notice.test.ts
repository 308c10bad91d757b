import { describe, expect, it } from 'vitest'
import { changeIsNews, changeNotice } from './change-notice.ts'
import type { LastChange } from './watch-article.ts'

const edith = { actor_id: 'usr_edith', actor_name: 'Edith Hale', at: null }
const move = (from_state: string, to_state: string, extra: Partial<LastChange> = {}): LastChange =>
  ({ ...edith, move: { from_state, to_state, publish_at: null, schedule_cancelled: false }, note: null, ...extra }) as LastChange

describe('changeNotice: the live notice names who acted and what they did', () => {
  it('names the editor who sent a story back, with her note, to the writer viewing it', () => {
    expect(changeNotice(move('in-review', 'draft', { note: 'The second source is missing.' }), 'usr_walter')).toBe('Edith Hale sent this back to draft: The second source is missing.')
  })

  it('says a live story was taken off the site, by the editor who did it', () => {
    expect(changeNotice(move('published', 'draft'), 'usr_daily_editor')).toBe('Edith Hale took this article off the site (back to draft).')
  })

  it('names the publisher of approve-and-publish rather than "Someone"', () => {
    expect(changeNotice(move('approved', 'published'), 'usr_other')).toBe('Edith Hale published this article.')
  })

  it('names the person who saved, and the viewer only as "You" when they acted themselves', () => {
    expect(changeNotice({ ...edith, move: null, note: null }, 'usr_walter')).toBe('Edith Hale edited this article.')
    expect(changeNotice({ ...edith, move: null, note: null }, 'usr_edith')).toBe('You changed this article in another window.')
  })

  it('says a scheduled publication happened by itself, and "Someone" only without any record', () => {
    expect(changeNotice(move('approved', 'published', { actor_id: null, actor_name: null }), 'usr_walter')).toBe('This article was published on schedule.')
    expect(changeNotice(null, 'usr_walter')).toBe('Someone edited this article.')
  })
})

describe('changeIsNews: a new version is said on the page unless this page made it', () => {
  it('says a version this page did not make, whoever made it: a colleague, or the viewer in another tab', () => {
    expect(changeIsNews(2, [])).toBe(true)
    expect(changeIsNews(3, [{ state: 'done', from: 1, version: 2 }, { state: 'failed' }])).toBe(true)
  })

  it('keeps quiet about the page\'s own save or move, both versions of approve-and-publish included', () => {
    expect(changeIsNews(2, [{ state: 'done', from: 1, version: 2 }])).toBe(false)
    expect(changeIsNews(4, [{ state: 'done', from: 3, version: 5 }])).toBe(false)
    expect(changeIsNews(5, [{ state: 'done', from: 3, version: 5 }, { state: 'pending' }])).toBe(false)
  })

  it('waits while a write of the page is on its way, whose answer tells', () => {
    expect(changeIsNews(2, [{ state: 'pending' }])).toBe('wait')
    expect(changeIsNews(2, [{ state: 'failed' }, { state: 'pending' }])).toBe('wait')
  })

  it('names the viewer\'s own move in another window as theirs', () => {
    expect(changeNotice(move('draft', 'in-review', { actor_id: 'usr_edith' }), 'usr_edith')).toBe('You submitted this for review in another window.')
  })
})
