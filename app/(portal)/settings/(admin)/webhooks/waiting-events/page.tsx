import type { Metadata } from 'next'
import Link from 'next/link'
import { getPortalActor } from '@/lib/auth/session'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { listWaitingEvents, type WaitingEvent } from '@/lib/ops/waiting-events'
import { EventQueueNotice } from '@/components/settings/event-queue-notice'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { LocalTime } from '@/components/local-time'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Waiting events' }

const shown = 100

function Purpose({ event }: { event: WaitingEvent }) {
  const { purpose } = event
  if (purpose.kind === 'scheduled_publication')
    return (
      <>
        Publishes {event.article ? <Link href={`/articles/${event.article.id}`}>{event.article.headline ?? event.article.id}</Link> : 'an article'}
        {purpose.publishAt && (
          <>
            {' '}
            at <LocalTime iso={purpose.publishAt} />
          </>
        )}
      </>
    )
  if (purpose.kind === 'cache_purge') return <>Purges the public content API’s cache</>
  if (purpose.kind === 'nothing') return <span className="muted">No subscription receives it</span>
  return (
    <>
      Delivery to{' '}
      {purpose.subscriptions.map((subscription, index) => (
        <span key={subscription.id}>
          {index > 0 && ', '}
          <Link href={`/settings/webhooks/${subscription.id}`}>{subscription.url}</Link>
        </span>
      ))}
    </>
  )
}

/** The outbox's events not yet handed to the queue, oldest first, each with what it holds up. */
export default async function WaitingEventsPage() {
  const admin = await getSettingsAdmin()
  const actor = await getPortalActor()
  if (!admin || !actor) return <SettingsForbidden />
  const { total, items } = await listWaitingEvents(actor, { limit: shown })
  return (
    <section aria-labelledby="page-heading">
      <p>
        <Link href="/settings/webhooks">← Webhooks</Link>
      </p>
      <h1 id="page-heading">Waiting events</h1>
      <p className={styles.intro}>
        Events are written with each change and handed to the event queue, which delivers webhooks, publishes scheduled articles and purges caches. These have not
        been handed over yet, oldest first; they go in this order as soon as the queue takes them. Deliveries are made when an event reaches the queue, so the
        subscriptions named are the ones it will go to as things stand.
      </p>
      <EventQueueNotice actor={actor} listLink={false} />
      {total === 0 ? (
        <p data-testid="waiting-events-empty">No events are waiting.</p>
      ) : (
        <>
          <p data-testid="waiting-events-count">
            {total === 1 ? '1 event is waiting.' : `${total} events are waiting.`}
            {total > items.length && ` The oldest ${items.length} are shown.`}
          </p>
          <div className={styles.tableWrap}>
            <table data-testid="waiting-events">
              <thead>
                <tr>
                  <th scope="col">Since</th>
                  <th scope="col">Event</th>
                  <th scope="col">Article</th>
                  <th scope="col">Waits to</th>
                  <th scope="col">Hand-over attempts</th>
                </tr>
              </thead>
              <tbody>
                {items.map((event) => (
                  <tr key={event.id}>
                    <td>
                      <LocalTime iso={event.createdAt.toISOString()} />
                    </td>
                    <td>
                      <code>{event.kind}</code>
                    </td>
                    <td>{event.article ? <Link href={`/articles/${event.article.id}`}>{event.article.headline ?? event.article.id}</Link> : '—'}</td>
                    <td>
                      <Purpose event={event} />
                    </td>
                    <td>
                      {event.sendAttempts}
                      {event.lastSendError && <span className="muted"> (last: {event.lastSendError})</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  )
}
