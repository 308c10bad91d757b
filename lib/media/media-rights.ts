import type { Media } from '../db/generated/client.ts'

/** Why one image may not be published, as the refusal and the portal's badges name it. */
export type MediaRefusalReason = 'alt_text_missing' | 'under_embargo' | 'licence_expired'

const wording: Record<MediaRefusalReason, (media: RightsFields) => string> = {
  alt_text_missing: () => 'it has no alt text',
  under_embargo: (media) => `it is under embargo until ${media.embargoUntil!.toISOString()}`,
  licence_expired: (media) => `its licence expired at ${media.expiresAt!.toISOString()}`,
}

export type RightsFields = Pick<Media, 'altText' | 'embargoUntil' | 'expiresAt'>

// What a screen reader does not read: white space, control characters, and what Unicode calls
// default-ignorable (zero-width characters, joiners, soft hyphen, variation selectors, tags, the
// Hangul fillers), plus the Braille blank, which draws nothing. By property, not a list: a list
// misses the next invisible character someone pastes (an alt text of one U+3164 is no alt text).
const invisible = /[\p{White_Space}\p{Cc}\p{Default_Ignorable_Code_Point}\u180E\u2800]/gu

/**
 * "May this image be published now?": the one rule the publish path (a publication's shared
 * refusal), the content API (which withholds what it may not show), the rendition route, the
 * desk and the portal's badges all ask, so what is refused and what is shown cannot drift apart.
 * Returns the reasons it may not (empty when it may).
 */
export function mediaPublishRefusal(media: RightsFields, now: Date = new Date()): MediaRefusalReason[] {
  const reasons: MediaRefusalReason[] = []
  if (!media.altText?.replace(invisible, '')) reasons.push('alt_text_missing')
  if (media.embargoUntil && media.embargoUntil > now) reasons.push('under_embargo')
  if (media.expiresAt && media.expiresAt <= now) reasons.push('licence_expired')
  return reasons
}

/**
 * Whether the public may see the image now (content API, renditions). Alt text is a publishing
 * duty, not a reason to hide an image already published; embargo and licence are.
 */
export function mediaWithheld(media: RightsFields, now: Date = new Date()): boolean {
  return mediaPublishRefusal(media, now).some((reason) => reason !== 'alt_text_missing')
}

/** The reasons in words, for a refusal's detail and the portal. */
export function describeRefusal(media: RightsFields, reasons: MediaRefusalReason[]): string {
  return reasons.map((reason) => wording[reason](media)).join(', ')
}

/** Licences ending within this window are listed on the desk. */
export const licenceWarningDays = 7
