import { licenceWarningDays, mediaPublishRefusal, type RightsFields } from './media-rights.ts'

/** A badge the portal shows on an image: what would stop or soon stop it being published. */
export type MediaBadge = { kind: 'no_alt_text' | 'embargoed' | 'expires_soon' | 'expired'; label: string }

const dayMs = 24 * 60 * 60 * 1000

/**
 * The library's rights badges, from the one publishing rule (mediaPublishRefusal), plus the
 * warning the desk gives for a licence ending within licenceWarningDays: so a badge never says
 * an image is fine when publishing would refuse it.
 */
export function mediaBadges(media: RightsFields, now: Date = new Date()): MediaBadge[] {
  const reasons = mediaPublishRefusal(media, now)
  const badges: MediaBadge[] = []
  if (reasons.includes('under_embargo')) badges.push({ kind: 'embargoed', label: 'Embargoed' })
  if (reasons.includes('licence_expired')) badges.push({ kind: 'expired', label: 'Licence expired' })
  else if (media.expiresAt && media.expiresAt.getTime() - now.getTime() <= licenceWarningDays * dayMs) badges.push({ kind: 'expires_soon', label: 'Licence expires soon' })
  if (reasons.includes('alt_text_missing')) badges.push({ kind: 'no_alt_text', label: 'No alt text' })
  return badges
}
