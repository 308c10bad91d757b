import { describe, expect, it } from 'vitest'
import { portalFieldMessage } from './field-wording.ts'
import { headlineSchema } from '../articles/article-schemas.ts'

describe('portalFieldMessage', () => {
  it('says what to do in the form’s words, not the API’s', () => {
    expect(portalFieldMessage('headline', 'headline must not be empty.')).toBe('Give the article a headline.')
    expect(portalFieldMessage('lede', 'lede must be at most 2,000 characters.')).toBe('Shorten the lede to 2,000 characters or fewer.')
    expect(portalFieldMessage('note', 'note must not be empty (markup is removed: a note is plain text).')).toBe('Write the note first: it cannot be empty.')
    expect(portalFieldMessage('events', 'events must list at least one event kind.')).toBe('Choose at least one of the event kinds.')
    expect(portalFieldMessage('url', 'url must use https.')).toBe('The endpoint URL must use https.')
  })

  it('words the API schema’s own refusal: the article form validates with it', () => {
    const refused = headlineSchema.safeParse('   ')
    expect(refused.success).toBe(false)
    expect(portalFieldMessage('headline', refused.error!.issues[0]!.message)).toBe('Give the article a headline.')
  })

  it('keeps a message that is the form’s own already, and reads `tags.3` as the tags', () => {
    expect(portalFieldMessage('newPassword', 'Use at least 12 characters.')).toBe('Use at least 12 characters.')
    expect(portalFieldMessage('tags.3', 'tags must list at most 20 tags.')).toBe('Choose at most 20 tags.')
  })
})
