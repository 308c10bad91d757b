import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { grantableScopes, scopeDescriptions, scopesWithoutEndpoints } from '@/lib/tokens/scopes'
import { CreateApiKey } from '@/components/settings/api-keys/create-api-key'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'

export const metadata: Metadata = { title: 'Create new key' }

export default async function NewApiKeyPage() {
  const admin = await getSettingsAdmin()
  if (!admin) return <SettingsForbidden />
  // Only what this person's role may hand on; the server refuses anything else anyway.
  const scopes = grantableScopes(admin.role).map((scope) => ({ scope, description: scopeDescriptions[scope], served: !scopesWithoutEndpoints.has(scope) }))
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/api-keys">← API Keys</Link>
      </p>
      <h1 id="page-heading">Create new key</h1>
      <CreateApiKey scopes={scopes} />
    </section>
  )
}
