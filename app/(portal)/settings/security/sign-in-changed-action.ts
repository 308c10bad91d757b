'use server'

import { updateTag } from 'next/cache'

/**
 * Called after the member's own sign-in changed (a factor set up or removed, recovery codes
 * renewed): the pages proxy.ts sends to Security depend on it, and the browser's router
 * remembers where each link led. `router.refresh()` renders the page again but keeps those
 * routes (Next 16 drops only the segments' data on a refresh), so a link that led to Security a
 * minute ago kept leading there after the factor was set up. A Server Action that expires a tag
 * is Next's one way to make the client drop its routes too; it also answers with the page
 * rendered afresh, so the layout's reminder goes at once. The tag marks nothing the server keeps.
 */
export async function signInChanged(): Promise<void> {
  updateTag('portal-sign-in')
}
