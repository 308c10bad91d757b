'use client'

import { usePathname } from 'next/navigation'
import { useEffect, useRef } from 'react'

/**
 * After a client-side navigation the browser leaves focus on the link that was followed (often
 * in the sidebar), so a keyboard or screen-reader user hears nothing of the new page. Move focus
 * to the new page's heading, as a full page load would start there. The first render is a
 * full load: focus stays where the browser puts it.
 */
export function RouteFocus() {
  const pathname = usePathname()
  const previous = useRef(pathname)
  useEffect(() => {
    if (previous.current === pathname) return
    previous.current = pathname
    // The new page's heading may stream in just after the path changes.
    let tries = 0
    const focusHeading = () => {
      const heading = document.querySelector<HTMLElement>('#main-content h1')
      if (!heading) {
        if (tries++ < 20) timer = window.setTimeout(focusHeading, 50)
        return
      }
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1')
      heading.focus({ preventScroll: false })
    }
    let timer = window.setTimeout(focusHeading, 0)
    return () => window.clearTimeout(timer)
  }, [pathname])
  return null
}
