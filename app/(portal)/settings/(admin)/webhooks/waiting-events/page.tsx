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

const count = (n: number) => n.toLocaleString('en-US')

/** The outbox's events not yet handed to the queue, oldest first, each with what it holds up; a page at a time. */
export default async function WaitingEventsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await getSettingsAdmin()
  const actor = await getPortalActor()
  if (!admin || !actor) return <SettingsForbidden />
  const { after } = await searchParams
  const { total, before, items, next } = await listWaitingEvents(actor, { limit: shown, after: typeof after === 'string' ? after : undefined })
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
            {total === 1 ? '1 event is waiting.' : `${count(total)} events are waiting.`}
            {items.length > 0 && total > items.length && ` Shown: ${count(before + 1)}–${count(before + items.length)}, oldest first.`}
            {items.length === 0 && ' None after the last page you saw: the queue has taken them.'}
          </p>
          {items.length > 0 && (
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
          )}
          {(before > 0 || next) && (
            <nav aria-label="Waiting event pages" className={styles.pager}>
              {before > 0 && <Link href="/settings/webhooks/waiting-events">← Oldest</Link>}
              {next && <Link href={`/settings/webhooks/waiting-events?after=${encodeURIComponent(next)}`}>Next {shown} →</Link>}
            </nav>
          )}
        </>
      )}
    </section>
  )
}
