'use client'

import { usePathname } from 'next/navigation'
import { useEffect, useState, type ReactNode } from 'react'

/**
 * The sidebar. On a narrow screen its links fold behind a Menu button (CSS hides the button on
 * wider screens, where the links always show); following a link folds them again.
 */
export function CollapsibleNav({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false)
  const pathname = usePathname()
  const [shownFor, setShownFor] = useState(pathname)
  if (shownFor !== pathname) {
    setShownFor(pathname)
    setOpen(false)
  }
  useEffect(() => {
    if (!open) return
    const close = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false)
    window.addEventListener('keydown', close)
    return () => window.removeEventListener('keydown', close)
  }, [open])
  return (
    <div className="sidebar" data-open={open}>
      <div className="sidebar-bar">
        <strong>Newsroom</strong>
        <button type="button" className="nav-toggle secondary" aria-expanded={open} aria-controls="portal-nav" onClick={() => setOpen(!open)}>
          Menu
        </button>
      </div>
      <div id="portal-nav" className="nav-links">
        {children}
      </div>
    </div>
  )
}
