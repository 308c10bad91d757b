'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import type { WebhookView } from '@/lib/trpc/routers/webhooks-router'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'
import { describeFilter, hasArticleFilter } from '@/lib/webhooks/subscription-filter'
import { describeAttempt } from './test-event-result'
import { DisabledExplanation, LastDelivery, WebhookStatusBadge } from './webhook-status'
import listStyles from './webhooks.module.css'
import { useListNarrowing } from '../list-narrowing'

export function WebhookList({ initialStatus }: { initialStatus: Status }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const webhooks = useQuery(trpc.webhooks.list.queryOptions())
  const departments = useQuery(trpc.departments.list.queryOptions())
  const departmentNames = new Map((departments.data ?? []).map((department) => [department.id, department.name]))
  const narrowed = useListNarrowing(webhooks.data?.items ?? [], (webhook) => [webhook.url, webhook.status, ...webhook.events])
  const [status, setStatus] = useState<Status>(initialStatus)
  const [pendingDelete, setPendingDelete] = useState<WebhookView | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter())
  const announce = (next: NonNullable<Status>) => setStatus({ ...next, focus: true })

  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (outcome, { webhookId }) => {
        const url = webhooks.data?.items.find((item) => item.webhook_id === webhookId)?.url ?? 'The receiver'
        announce(describeAttempt('Test event', url, outcome))
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const reenable = useMutation(
    trpc.webhooks.reenable.mutationOptions({
      onSuccess: async (webhook) => {
        announce({ kind: 'success', text: `Re-enabled ${webhook.url}. New events are delivered to it again.` })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        const url = pendingDelete?.url
        setPendingDelete(null)
        announce({ kind: 'success', text: `Deleted the subscription to ${url}. Nothing more is sent to it.` })
        await refresh()
      },
    }),
  )

  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading" className={styles.visuallyHidden}>
        Subscriptions
      </h2>
      <StatusMessage status={status} />
      {webhooks.isPending && <p className="muted">Loading subscriptions…</p>}
      {webhooks.isError && <p className="alert error" role="alert">The subscriptions could not be loaded. {refusalMessage(webhooks.error)}</p>}
      {webhooks.data?.items.length === 0 && <p className="muted">No subscriptions yet. Add one to receive events.</p>}
      {narrowed.controls}
      {webhooks.data && webhooks.data.items.length > 0 && (
        <div className={styles.tableWrap}>
          <table>
            <caption className={styles.visuallyHidden}>Webhook subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Last delivery</th>
                <th scope="col"><span className={styles.visuallyHidden}>Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {narrowed.visible.map((webhook) => (
                <tr key={webhook.webhook_id} data-testid={`webhook-${webhook.webhook_id}`}>
                  <th scope="row" className={listStyles.url}>
                    {webhook.url}
                  </th>
                  <td data-label="Events">
                    <ul className={listStyles.eventList} aria-label={`Events sent to ${webhook.url}`}>
                      {webhook.events.map((kind) => (
                        <li key={kind} className={styles.mono}>
                          {kind}
                        </li>
                      ))}
                    </ul>
                    {hasArticleFilter({ departmentIds: webhook.department_ids, tags: webhook.tags, statuses: webhook.statuses }) && (
                      <p className={`${styles.small} muted`} data-testid="webhook-filter">
                        {describeFilter(webhook.events, { departmentIds: webhook.department_ids, tags: webhook.tags, statuses: webhook.statuses }, departmentNames)}
                      </p>
                    )}
                  </td>
                  <td data-label="Status">
                    <WebhookStatusBadge webhook={webhook} />
                    {webhook.status === 'disabled' && <p className={`${styles.small} muted`}><DisabledExplanation webhook={webhook} /></p>}
                  </td>
                  <td data-label="Last delivery">
                    <LastDelivery webhook={webhook} />
                  </td>
                  <td>
                    <div className={styles.rowActions}>
                      <button
                        type="button"
                        className="secondary"
                        disabled={sendTest.isPending}
                        onClick={() => sendTest.mutate({ webhookId: webhook.webhook_id })}
                        aria-label={`Send test event to ${webhook.url}`}
                      >
                        {sendTest.isPending && sendTest.variables?.webhookId === webhook.webhook_id ? 'Sending…' : 'Send test event'}
                      </button>
                      {webhook.status === 'disabled' && (
                        <button type="button" disabled={reenable.isPending} onClick={() => reenable.mutate({ webhookId: webhook.webhook_id })} aria-label={`Re-enable ${webhook.url}`}>
                          Re-enable
                        </button>
                      )}
                      <Link href={`/settings/webhooks/${webhook.webhook_id}`} className={`${styles.buttonLink} ${styles.secondaryLink}`} aria-label={`Deliveries of ${webhook.url}`}>
                        Deliveries
                      </Link>
                      <Link href={`/settings/webhooks/${webhook.webhook_id}/edit`} className={`${styles.buttonLink} ${styles.secondaryLink}`} aria-label={`Edit ${webhook.url}`}>
                        Edit
                      </Link>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => {
                          remove.reset()
                          setPendingDelete(webhook)
                        }}
                        aria-label={`Delete ${webhook.url}`}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={pendingDelete !== null}
        title="Delete this subscription?"
        confirmLabel="Delete subscription"
        busyLabel="Deleting…"
        busy={remove.isPending}
        error={remove.isError ? refusalMessage(remove.error) : null}
        onCancel={() => setPendingDelete(null)}
        onConfirm={() => pendingDelete && remove.mutate({ webhookId: pendingDelete.webhook_id })}
      >
        <p>
          Nothing more is sent to <span className={listStyles.url}>{pendingDelete?.url}</span>. Its deliveries log is deleted with it and
          pending retries stop. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  )
}
