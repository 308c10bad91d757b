import Link from 'next/link'
import { can } from '@/lib/auth/permissions'
import type { Role } from '@/lib/db/generated/enums'

/** Navigation by permission (lib/auth/permissions.ts). Hiding a link is for clarity only; every page, procedure and domain function checks the same permission itself. */
export function PortalNav({ role }: { role: Role }) {
  return (
    <nav aria-label="Main">
      <div className="section">Newsroom</div>
      <Link href="/">Home</Link>
      <Link href="/articles">Articles</Link>
      {can({ role }, 'media:read') && <Link href="/media">Media</Link>}
      <Link href="/docs/api">API reference</Link>
      <div className="section">Settings</div>
      {can({ role }, 'admin') && (
        <>
          <Link href="/settings/api-keys">API Keys</Link>
          {can({ role }, 'webhooks:manage') && <Link href="/settings/webhooks">Webhooks</Link>}
          <Link href="/settings/users">Users</Link>
          <Link href="/settings/departments">Departments</Link>
          <Link href="/settings/search">Search</Link>
          <Link href="/settings/single-sign-on">Single sign-on</Link>
          <Link href="/settings/two-factor">Two-factor policy</Link>
          <Link href="/settings/audit-log">Audit log</Link>
          <Link href="/settings/export">Export</Link>
        </>
      )}
      {/* Every member's own sign-in, whatever their role. */}
      <Link href="/settings/security">Security</Link>
    </nav>
  )
}
