import type { Metadata } from 'next'
import Link from 'next/link'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { EditWebhook } from '@/components/settings/webhooks/edit-webhook'

export const metadata: Metadata = { title: 'Edit webhook subscription' }

export default async function EditWebhookPage({ params }: { params: Promise<{ webhook_id: string }> }) {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  const { webhook_id: webhookId } = await params
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/webhooks">← Webhooks</Link>
      </p>
      <h1 id="page-heading">Edit webhook subscription</h1>
      <EditWebhook webhookId={webhookId} />
    </section>
  )
}
