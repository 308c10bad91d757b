import type { ReactNode } from 'react'
import { requirePortalUser } from '@/lib/auth/session'
import { CollapsibleNav } from '@/components/collapsible-nav'
import { PortalNav } from '@/components/portal-nav'
import { RouteFocus } from '@/components/route-focus'
import { SignOutButton } from '@/components/sign-out-button'
import { PortalTrpcProvider } from '@/components/trpc-provider'

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const user = await requirePortalUser()
  return (
    <div className="shell">
      {/* The first stop for keyboard users: past the navigation, straight to the page. */}
      <a href="#main-content" className="skip-link">
        Skip to content
      </a>
      <CollapsibleNav>
        <PortalNav role={user.role} />
      </CollapsibleNav>
      <div className="main">
        <header className="topbar">
          <div>
            <strong>{user.tenantName}</strong>
          </div>
          <div>
            <span data-testid="signed-in-user">
              {user.name} <span className="muted">({user.role})</span>
            </span>{' '}
            <SignOutButton />
          </div>
        </header>
        <RouteFocus />
        <main id="main-content" tabIndex={-1}>
          <PortalTrpcProvider>{children}</PortalTrpcProvider>
        </main>
      </div>
    </div>
  )
}
