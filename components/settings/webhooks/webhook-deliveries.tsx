'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import type { DeliveryView } from '@/lib/trpc/routers/webhooks-router'
import { useTRPC } from '@/components/trpc-provider'
import { LocalTime } from '@/components/local-time'
import { formatDuration } from '../format'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'
import { describeAttempt } from './test-event-result'
import { DisabledExplanation, LastDelivery, WebhookStatusBadge } from './webhook-status'
import pageStyles from './webhooks.module.css'

const pageSize = 20

function DeliveryStatusBadge({ delivery }: { delivery: DeliveryView }) {
  const tone = delivery.status === 'succeeded' ? styles.ok : delivery.status === 'failed' ? styles.danger : styles.warn
  return <span className={`${styles.badge} ${tone}`}>{delivery.status}</span>
}

type AttemptView = DeliveryView['attempts'][number]

function HeaderList({ headers }: { headers: Record<string, string> }) {
  return <pre className={styles.mono}>{Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
}

/** What one attempt sent and got back, as GitHub's recent deliveries show it. */
function AttemptDetail({ attempt }: { attempt: AttemptView }) {
  return (
    <details>
      <summary>Request and response of attempt #{attempt.attempt}</summary>
      <h4>Request</h4>
      {attempt.request ? (
        <>
          <HeaderList headers={attempt.request.headers} />
          <pre className={styles.breakAll}>{attempt.request.body}</pre>
        </>
      ) : (
        <p className="muted">Not recorded for this attempt.</p>
      )}
      <h4>Response</h4>
      {attempt.response ? (
        <>
          <p>Status {attempt.response_status}</p>
          <HeaderList headers={attempt.response.headers} />
          <pre className={styles.breakAll}>{attempt.response.body || '(empty body)'}</pre>
          {attempt.response.body_truncated && <p className="muted">Only the first 4 KB of the body is kept.</p>}
        </>
      ) : (
        <p className="muted">No response arrived{attempt.error ? `: ${attempt.error}` : '.'}</p>
      )}
    </details>
  )
}

function DeliveryCard({ delivery, busy, onRedeliver }: { delivery: DeliveryView; busy: boolean; onRedeliver: () => void }) {
  const headingId = `delivery-${delivery.delivery_id}`
  return (
    <article className={pageStyles.delivery} aria-labelledby={headingId} data-testid={headingId}>
      <div className={pageStyles.deliveryHeader}>
        <h3 id={headingId}>
          <span className={styles.mono}>{delivery.event}</span> <DeliveryStatusBadge delivery={delivery} />
        </h3>
        <button type="button" className="secondary" disabled={busy} onClick={onRedeliver} aria-label={`Redeliver ${delivery.event} (${delivery.delivery_id})`}>
          {busy ? 'Redelivering…' : 'Redeliver'}
        </button>
      </div>
      <p className={pageStyles.deliveryMeta}>
        <span>
          Delivery <span className={styles.mono}>{delivery.delivery_id}</span>
        </span>
        <span>
          Event{' '}
          {delivery.event === 'webhook.test' ? (
            <span className={styles.mono}>{delivery.event_id}</span>
          ) : (
            // The events API answers the same envelope; the portal has no key to call it with, so it names the call.
            <span className={styles.mono} title={`The same event from the API: GET /v1/events/${delivery.event_id} (scope events:read)`}>
              {delivery.event_id}
            </span>
          )}
        </span>
        <span>Created <LocalTime iso={delivery.created_at} seconds /></span>
        {delivery.next_attempt_at && <span>Next retry <LocalTime iso={delivery.next_attempt_at} /></span>}
      </p>
      {delivery.attempts.length === 0 ? (
        <p className="muted">No attempt yet; the first one is on its way.</p>
      ) : (
        <div className={styles.tableWrap}>
          <table>
            <caption className={styles.visuallyHidden}>Attempts of delivery {delivery.delivery_id}</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Status code</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt) => (
                <tr key={attempt.attempt}>
                  <td>#{attempt.attempt}</td>
                  <td className={styles.nowrap}>
                    <LocalTime iso={attempt.at} seconds />
                  </td>
                  <td>
                    {attempt.response_status === null ? (
                      <span className="muted">No response</span>
                    ) : (
                      <span className={`${styles.badge} ${attempt.response_status >= 200 && attempt.response_status < 300 ? styles.ok : styles.danger}`}>
                        {attempt.response_status}
                      </span>
                    )}
                  </td>
                  <td className={styles.nowrap}>{formatDuration(attempt.duration_ms)}</td>
                  <td className={styles.breakAll}>
                    {attempt.error ?? <span className="muted">—</span>}
                    <AttemptDetail attempt={attempt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  )
}

/** How long the log keeps what it shows: the server's DELIVERY_LOG_RETENTION_DAYS, passed in by the page. */
function RetentionNote({ days }: { days: number }) {
  return (
    <p className="muted" data-testid="delivery-retention">
      Each delivery is kept with its attempts, including what was sent (headers and body) and what came back (status, headers and the first 4 KB of the
      body), for {days === 1 ? '1 day' : `${days} days`} after it was created, then deleted overnight. Deliveries still retrying or waiting for a paused
      subscription are kept until they finish.
    </p>
  )
}

export function WebhookDeliveries({ webhookId, initialStatus, retentionDays }: { webhookId: string; initialStatus: Status; retentionDays: number }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [offset, setOffset] = useState(0)
  const [status, setStatus] = useState<Status>(initialStatus)
  const webhook = useQuery(trpc.webhooks.get.queryOptions({ webhookId }))
  const deliveries = useQuery(trpc.webhooks.deliveries.queryOptions({ webhookId, limit: pageSize, offset }))
  const refresh = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter())
  const announce = (next: NonNullable<Status>) => setStatus({ ...next, focus: true })
  const url = webhook.data?.url ?? 'The receiver'

  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (outcome) => {
        setOffset(0)
        announce(describeAttempt('Test event', url, outcome))
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSuccess: async (outcome) => {
        announce(describeAttempt(`Redelivery of ${outcome.delivery_id}`, url, outcome))
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const [rotated, setRotated] = useState<{ secret: string; standardWebhooksSecret: string } | null>(null)
  const rotateSecret = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: async (answer) => {
        setRotated({ secret: answer.secret, standardWebhooksSecret: answer.standardWebhooksSecret })
        announce({ kind: 'success', text: 'Secret rotated. Copy the new secret below now; it is shown only once. The previous secret keeps signing for 24 hours.' })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const pause = useMutation(
    trpc.webhooks.pause.mutationOptions({
      onSuccess: async () => {
        announce({ kind: 'success', text: 'Paused. New deliveries wait until you resume it.' })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const resume = useMutation(
    trpc.webhooks.resume.mutationOptions({
      onSuccess: async () => {
        announce({ kind: 'success', text: 'Resumed. Deliveries that waited go out within a minute.' })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const reenable = useMutation(
    trpc.webhooks.reenable.mutationOptions({
      onSuccess: async () => {
        announce({ kind: 'success', text: 'Re-enabled. New events are delivered again.' })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )

  if (webhook.isError) {
    return (
      <p className="alert error" role="alert">
        {refusalMessage(webhook.error)} <Link href="/settings/webhooks">Back to webhooks</Link>
      </p>
    )
  }

  return (
    <>
      <StatusMessage status={status} />
      {webhook.data && (
        <dl className={pageStyles.summary}>
          <dt>URL</dt>
          <dd className={pageStyles.url}>{webhook.data.url}</dd>
          <dt>Status</dt>
          <dd>
            <WebhookStatusBadge webhook={webhook.data} /> <DisabledExplanation webhook={webhook.data} />
          </dd>
          <dt>Events</dt>
          <dd className={styles.mono}>{webhook.data.events.join(', ')}</dd>
          {webhook.data.previous_secret_expires_at && (
            <>
              <dt>Previous secret</dt>
              <dd>Still signs deliveries, beside the new one, until <LocalTime iso={webhook.data.previous_secret_expires_at} />.</dd>
            </>
          )}
          <dt>Last delivery</dt>
          <dd>
            <LastDelivery webhook={webhook.data} />
          </dd>
        </dl>
      )}
      <div className={styles.actions}>
        <button type="button" disabled={sendTest.isPending || !webhook.data} onClick={() => sendTest.mutate({ webhookId })}>
          {sendTest.isPending ? 'Sending…' : 'Send test event'}
        </button>
        {webhook.data?.status === 'enabled' && (
          <button type="button" className="secondary" disabled={pause.isPending} onClick={() => pause.mutate({ webhookId })}>
            {pause.isPending ? 'Pausing…' : 'Pause'}
          </button>
        )}
        {webhook.data?.status === 'paused' && (
          <button type="button" disabled={resume.isPending} onClick={() => resume.mutate({ webhookId })}>
            {resume.isPending ? 'Resuming…' : 'Resume'}
          </button>
        )}
        {webhook.data?.status === 'disabled' && (
          <button type="button" disabled={reenable.isPending} onClick={() => reenable.mutate({ webhookId })}>
            Re-enable
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={rotateSecret.isPending || !webhook.data}
          onClick={() => {
            if (window.confirm('Rotate the signing secret? A new secret is generated and shown once; the current one keeps signing for 24 hours.')) rotateSecret.mutate({ webhookId })
          }}
        >
          {rotateSecret.isPending ? 'Rotating…' : 'Rotate secret'}
        </button>
        <Link href={`/settings/webhooks/${webhookId}/edit`} className={`${styles.buttonLink} ${styles.secondaryLink}`}>
          Edit subscription
        </Link>
      </div>

      {rotated && (
        <section aria-labelledby="new-secret-heading" className="alert" data-testid="new-secret">
          <h2 id="new-secret-heading">New signing secret</h2>
          <p>Store it in your receiver now: it is not shown again. Until the overlap ends, deliveries carry signatures made with both secrets.</p>
          <dl>
            <dt>Secret</dt>
            <dd className={styles.mono}>{rotated.secret}</dd>
            <dt>For Standard Webhooks libraries</dt>
            <dd className={styles.mono}>{rotated.standardWebhooksSecret}</dd>
          </dl>
          <button type="button" className="secondary" onClick={() => setRotated(null)}>
            I have stored it
          </button>
        </section>
      )}

      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries {deliveries.data && <span className="muted">({deliveries.data.total})</span>}</h2>
        <RetentionNote days={retentionDays} />
        {deliveries.isPending && <p className="muted">Loading deliveries…</p>}
        {deliveries.isError && <p className="alert error" role="alert">The deliveries could not be loaded. {refusalMessage(deliveries.error)}</p>}
        {deliveries.data?.items.length === 0 && <p className="muted">Nothing was delivered yet. Send a test event to check your receiver.</p>}
        {deliveries.data?.items.map((delivery) => (
          <DeliveryCard
            key={delivery.delivery_id}
            delivery={delivery}
            busy={redeliver.isPending && redeliver.variables?.deliveryId === delivery.delivery_id}
            onRedeliver={() => redeliver.mutate({ deliveryId: delivery.delivery_id })}
          />
        ))}
        {deliveries.data && deliveries.data.total > pageSize && (
          <nav aria-label="Delivery pages" className={styles.pager}>
            <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
              ← Newer
            </button>
            <span className="muted">
              {offset + 1}–{offset + deliveries.data.items.length} of {deliveries.data.total}
            </span>
            <button type="button" className="secondary" disabled={deliveries.data.next_offset === null} onClick={() => setOffset(deliveries.data.next_offset ?? offset)}>
              Older →
            </button>
          </nav>
        )}
      </section>
    </>
  )
}
