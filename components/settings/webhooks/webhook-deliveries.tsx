'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { eventKindsNeverSent, type EventKind } from '@/lib/events/event-kinds'
import type { DeliveryView } from '@/lib/trpc/routers/webhooks-router'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { formatDuration } from '../format'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { OneTimeSecret } from '../one-time-secret'
import styles from '../settings.module.css'
import { describeAttempt } from './test-event-result'
import { DisabledExplanation, LastDelivery, WebhookStatusBadge } from './webhook-status'
import pageStyles from './webhooks.module.css'

const pageSize = 20

type Overview = { attempts24h: number; succeeded24h: number; pending: number; held: number }

function successRate(overview: Overview): string {
  if (overview.attempts24h === 0) return 'No attempts in the last 24 hours.'
  const percent = Math.floor((overview.succeeded24h / overview.attempts24h) * 100)
  return `${percent}% of attempts succeeded (${overview.succeeded24h} of ${overview.attempts24h}).`
}

function waiting(overview: Overview): string {
  if (overview.pending === 0) return 'Nothing is waiting to be delivered.'
  const deliveries = overview.pending === 1 ? '1 delivery is' : `${overview.pending} deliveries are`
  return `${deliveries} waiting${overview.held > 0 ? ` (${overview.held} held until you resume)` : ''}.`
}

function DeliveryStatusBadge({ delivery }: { delivery: DeliveryView }) {
  const tone = delivery.status === 'succeeded' ? styles.ok : delivery.status === 'failed' ? styles.danger : styles.warn
  return <span className={`${styles.badge} ${tone}`}>{delivery.status}</span>
}

type AttemptView = DeliveryView['attempts'][number]

function HeaderList({ headers }: { headers: Record<string, string> }) {
  return <pre className={pageStyles.exchange} data-testid="attempt-headers">{Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
}

/** What one attempt sent and got back, as GitHub's recent deliveries show it. */
function AttemptDetail({ attempt }: { attempt: AttemptView }) {
  return (
    <details className={pageStyles.attemptDetail}>
      <summary>Request and response of attempt #{attempt.attempt}</summary>
      <h4>Request</h4>
      {attempt.request ? (
        <>
          <HeaderList headers={attempt.request.headers} />
          <pre className={pageStyles.exchange} data-testid="attempt-request-body">{attempt.request.body}</pre>
        </>
      ) : (
        <p className="muted">Not recorded for this attempt.</p>
      )}
      <h4>Response</h4>
      {attempt.response ? (
        <>
          <p>Status {attempt.response_status}</p>
          <HeaderList headers={attempt.response.headers} />
          <pre className={pageStyles.exchange} data-testid="attempt-response-body">{attempt.response.body || '(empty body)'}</pre>
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
                  <td data-label="Attempt">#{attempt.attempt}</td>
                  <td data-label="Time" className={styles.nowrap}>
                    <LocalTime iso={attempt.at} seconds />
                  </td>
                  <td data-label="Status code">
                    {attempt.response_status === null ? (
                      <span className="muted">No response</span>
                    ) : (
                      <span className={`${styles.badge} ${attempt.response_status >= 200 && attempt.response_status < 300 ? styles.ok : styles.danger}`}>
                        {attempt.response_status}
                      </span>
                    )}
                  </td>
                  <td data-label="Duration" className={styles.nowrap}>{formatDuration(attempt.duration_ms)}</td>
                  <td data-label="Error" className={styles.breakAll}>
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
  const overview = useQuery(trpc.webhooks.overview.queryOptions({ webhookId }))
  // What "Send test event" sends: webhook.test, or a sample of one of the subscription's kinds.
  const [testKind, setTestKind] = useState<string>('webhook.test')
  const sampleKinds = (webhook.data?.events ?? []).filter((kind) => !eventKindsNeverSent.has(kind as EventKind))
  const refresh = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter())
  const announce = (next: NonNullable<Status>) => setStatus({ ...next, focus: true })
  const url = webhook.data?.url ?? 'The receiver'

  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (outcome) => {
        setOffset(0)
        announce(describeAttempt(testKind === 'webhook.test' ? 'Test event' : `Sample ${testKind}`, url, outcome))
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
  const [confirming, setConfirming] = useState<'pause' | 'rotate' | null>(null)
  const rotateSecret = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: async (answer) => {
        setConfirming(null)
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
        setConfirming(null)
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
          <dt>Last 24 hours</dt>
          <dd data-testid="success-rate">{overview.data ? successRate(overview.data) : '…'}</dd>
          <dt>Waiting</dt>
          <dd data-testid="pending-count">{overview.data ? waiting(overview.data) : '…'}</dd>
        </dl>
      )}
      <div className={styles.actions}>
        <span className={pageStyles.testKind}>
          <label htmlFor="test-kind">Test event</label>
          <select id="test-kind" value={testKind} onChange={(event) => setTestKind(event.target.value)}>
            <option value="webhook.test">webhook.test (a ping)</option>
            {sampleKinds.map((kind) => (
              <option key={kind} value={kind}>
                Sample {kind}
              </option>
            ))}
          </select>
        </span>
        <button type="button" disabled={sendTest.isPending || !webhook.data} onClick={() => sendTest.mutate({ webhookId, ...(testKind !== 'webhook.test' && { event: testKind }) })}>
          {sendTest.isPending ? 'Sending…' : 'Send test event'}
        </button>
        {webhook.data?.status === 'enabled' && (
          <button type="button" className="secondary" disabled={pause.isPending} onClick={() => setConfirming('pause')}>
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
          onClick={() => setConfirming('rotate')}
        >
          {rotateSecret.isPending ? 'Rotating…' : 'Rotate secret'}
        </button>
        <Link href={`/settings/webhooks/${webhookId}/edit`} className={`${styles.buttonLink} ${styles.secondaryLink}`}>
          Edit subscription
        </Link>
      </div>

      <ConfirmDialog
        open={confirming === 'pause'}
        title="Pause deliveries to this receiver?"
        confirmLabel="Pause deliveries"
        busyLabel="Pausing…"
        busy={pause.isPending}
        error={pause.isError ? refusalMessage(pause.error) : null}
        onCancel={() => setConfirming(null)}
        onConfirm={() => pause.mutate({ webhookId })}
      >
        <p>
          {url} stops receiving events as soon as you confirm. Events that happen meanwhile wait and are sent when you resume, so the receiver
          falls behind until then.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busyLabel="Rotating…"
        busy={rotateSecret.isPending}
        error={rotateSecret.isError ? refusalMessage(rotateSecret.error) : null}
        onCancel={() => setConfirming(null)}
        onConfirm={() => rotateSecret.mutate({ webhookId })}
      >
        <p>
          A new secret is generated and shown once. For 24 hours deliveries to {url} carry signatures made with both secrets; after that a receiver
          that still checks the current secret rejects every delivery. Update the receiver within the day.
        </p>
      </ConfirmDialog>

      {rotated && (
        <div data-testid="new-secret">
          <OneTimeSecret title="New signing secret" valueLabel="Secret" value={rotated.secret} copyLabel="Copy secret" testId="rotated-secret">
            <p>Store it in your receiver now: it is not shown again. Until the overlap ends, deliveries carry signatures made with both secrets.</p>
          </OneTimeSecret>
          <OneTimeSecret title="The same secret for Standard Webhooks libraries" valueLabel="whsec_ form" value={rotated.standardWebhooksSecret} copyLabel="Copy whsec_ secret" focusOnShow={false}>
            <p>Libraries that verify the webhook-signature header take the secret in this form.</p>
          </OneTimeSecret>
          <button type="button" className="secondary" onClick={() => setRotated(null)}>
            I have stored it
          </button>
        </div>
      )}

      <section aria-labelledby="deliveries-heading" className={pageStyles.deliveriesSection}>
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
