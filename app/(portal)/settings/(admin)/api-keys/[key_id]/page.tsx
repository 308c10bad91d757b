import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { ApiKeyDetails } from '@/components/settings/api-keys/api-key-details'
import { ApiKeyRequests } from '@/components/settings/api-keys/api-key-requests'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'

export const metadata: Metadata = { title: 'API key' }

export default async function ApiKeyPage(props: { params: Promise<{ key_id: string }> }) {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  const { key_id: keyId } = await props.params
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/api-keys">← API Keys</Link>
      </p>
      <ApiKeyDetails tokenId={keyId} />
      <ApiKeyRequests tokenId={keyId} />
    </section>
  )
}
