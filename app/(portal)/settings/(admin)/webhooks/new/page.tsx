import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { WebhookForm } from '@/components/settings/webhooks/webhook-form'

export const metadata: Metadata = { title: 'Add webhook subscription' }

export default async function NewWebhookPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/webhooks">← Webhooks</Link>
      </p>
      <h1 id="page-heading">Add webhook subscription</h1>
      <WebhookForm mode="create" />
    </section>
  )
}
