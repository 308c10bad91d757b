import Link from 'next/link'
import type { Role } from '@/lib/db/generated/enums'

/** Navigation by role. Hiding a link is for clarity only; every page and procedure checks the role itself. */
export function PortalNav({ role }: { role: Role }) {
  return (
    <nav aria-label="Main">
      <div className="section">Newsroom</div>
      <Link href="/">Home</Link>
      <Link href="/articles">Articles</Link>
      <Link href="/docs/api">API reference</Link>
      {role === 'admin' && (
        <>
          <div className="section">Settings</div>
          <Link href="/settings/api-keys">API Keys</Link>
          <Link href="/settings/webhooks">Webhooks</Link>
          <Link href="/settings/users">Users</Link>
          <Link href="/settings/departments">Departments</Link>
          <Link href="/settings/audit-log">Audit log</Link>
        </>
      )}
    </nav>
  )
}
