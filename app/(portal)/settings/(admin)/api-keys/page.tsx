import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { ApiKeyList } from '@/components/settings/api-keys/api-key-list'
import { ContentKeyList } from '@/components/settings/api-keys/content-key-list'
import { RotationHelp } from '@/components/settings/api-keys/rotation-help'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'API Keys' }

export default async function ApiKeysPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <div className={styles.headerRow}>
        <h1 id="page-heading">API Keys</h1>
        <Link href="/settings/api-keys/new" className={styles.buttonLink}>
          Create new key
        </Link>
      </div>
      <p className={styles.intro}>
        Integrations call the <Link href="/docs/api">newsroom API</Link> with a key’s token in the <code>Authorization: Bearer</code> header.
        Each key belongs to this newsroom and carries only the scopes chosen when it was created.
      </p>
      <ApiKeyList />
      <RotationHelp />
      <ContentKeyList />
    </section>
  )
}
