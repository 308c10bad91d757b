import type { Metadata } from 'next'
import Link from 'next/link'
import { auditPageSize, listAuditEntries } from '@/lib/audit/list-audit-entries'
import { getPortalActor } from '@/lib/auth/session'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { AuditLogTable } from '@/components/settings/audit-log/audit-log-table'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Audit log' }

export default async function AuditLogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await getSettingsAdmin()
  const actor = await getPortalActor()
  if (!admin || !actor) return <SettingsForbidden />
  const requested = Number((await searchParams).page)
  const page = Number.isInteger(requested) && requested > 1 ? requested : 1
  const result = await listAuditEntries(actor, { limit: auditPageSize, offset: (page - 1) * auditPageSize })
  const pages = Math.max(1, Math.ceil(result.total / auditPageSize))

  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Audit log</h1>
      <p className={styles.intro}>
        Who created or revoked API keys, changed webhook subscriptions, and added, re-roled or deactivated people in {admin.tenantName},
        newest first. Times are in UTC.
      </p>
      {result.items.length === 0 ? (
        <p className="muted">{page > 1 ? 'There are no entries on this page.' : 'Nothing has been recorded yet.'}</p>
      ) : (
        <AuditLogTable entries={result.items} />
      )}
      <nav aria-label="Audit log pages" className={styles.pager}>
        {page > 1 && <Link href={`/settings/audit-log?page=${page - 1}`}>← Newer</Link>}
        <span className="muted">
          Page {Math.min(page, pages)} of {pages} · {result.total} {result.total === 1 ? 'entry' : 'entries'}
        </span>
        {result.nextOffset !== null && <Link href={`/settings/audit-log?page=${page + 1}`}>Older →</Link>}
      </nav>
    </section>
  )
}
