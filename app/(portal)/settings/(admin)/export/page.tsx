import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { omittedFromArchive } from '@/lib/portability/archive-format'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { ExportDownload } from '@/components/settings/export-download'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Export' }

export default async function ExportPage() {
  const admin = await getSettingsAdmin()
  if (!admin) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Export</h1>
      <p className={styles.intro}>
        Everything {admin.tenantName} owns, in one file: articles with their revisions, notes, history and addresses, departments,
        members, the media library with each image’s original file, webhook subscriptions, events and the audit log. Another server running this service loads it with{' '}
        <code>npm run newsroom -- import</code>, keeping every id. The file ends with a checksum; an import refuses a file that was cut
        short or changed. Each export is recorded in the audit log.
      </p>
      <p>
        <ExportDownload />
      </p>
      <h2>Not in the file</h2>
      <ul>
        {Object.entries(omittedFromArchive).map(([what, why]) => (
          <li key={what}>
            <strong>{what}</strong>: {why}.
          </li>
        ))}
      </ul>
    </section>
  )
}
