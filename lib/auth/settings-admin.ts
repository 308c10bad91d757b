import { cache } from 'react'
import { can } from './permissions.ts'
import { requirePortalUser, type PortalUser } from './session.ts'

/**
 * For Settings pages: the signed-in admin, or null for anyone else (the page then shows
 * its 403 view). Each page calls it itself: hiding links is not a check, and a layout's
 * check alone does not run again when the browser moves between pages under it. Cached
 * per request, so the layout and the page read the session once.
 */
export const getSettingsAdmin = cache(async (): Promise<PortalUser | null> => {
  const user = await requirePortalUser()
  return can(user, 'admin') ? user : null
})
