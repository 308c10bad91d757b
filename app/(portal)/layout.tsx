import type { ReactNode } from 'react'
import Link from 'next/link'
import { getSecondFactorDueBy, requirePortalUser, secondFactorSetupPath } from '@/lib/auth/session'
import { LocalTime } from '@/components/local-time'
import { CollapsibleNav } from '@/components/collapsible-nav'
import { PortalNav } from '@/components/portal-nav'
import { RouteFocus } from '@/components/route-focus'
import { SignOutButton } from '@/components/sign-out-button'
import { PortalTrpcProvider } from '@/components/trpc-provider'
import { SignInChangedListener } from '@/components/settings/security/use-sign-in-changed'

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const user = await requirePortalUser()
  // Covered by the newsroom's two-factor policy without a factor: a reminder on every page
  // (past the grace, proxy.ts has already sent every page but Security there).
  const secondFactor = await getSecondFactorDueBy()
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
        {secondFactor && (
          <p className="alert warning" role="status" data-testid="second-factor-banner">
            {secondFactor.overdue ? (
              'Your newsroom requires two-factor sign-in: set it up now to continue.'
            ) : (
              <>
                Your newsroom requires two-factor sign-in: set up two-factor by <LocalTime iso={secondFactor.dueBy} />.
              </>
            )}{' '}
            <Link href={secondFactorSetupPath}>Set it up in Security</Link>
          </p>
        )}
        <RouteFocus />
        <main id="main-content" tabIndex={-1}>
          <PortalTrpcProvider>
            {/* A factor set up or removed in another tab: this one's reminder and routes follow. */}
            <SignInChangedListener />
            {children}
          </PortalTrpcProvider>
        </main>
      </div>
    </div>
  )
}
