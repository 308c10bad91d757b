'use client'

import { useQuery } from '@tanstack/react-query'
import { isEventKind } from '@/lib/events/event-kinds'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { WebhookForm } from './webhook-form'

export function EditWebhook({ webhookId }: { webhookId: string }) {
  const trpc = useTRPC()
  const webhook = useQuery(trpc.webhooks.get.queryOptions({ webhookId }))
  if (webhook.isPending) return <p className="muted">Loading the subscription…</p>
  if (webhook.isError) return <p className="alert error" role="alert">{refusalMessage(webhook.error)}</p>
  return <WebhookForm mode="edit" webhookId={webhookId} initial={{ url: webhook.data.url, events: webhook.data.events.filter(isEventKind), department_ids: webhook.data.department_ids, tags: webhook.data.tags, statuses: webhook.data.statuses }} />
}
