'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import type { ReactNode } from 'react'
import type { inferRouterOutputs } from '@trpc/server'
import { useTRPC } from '@/components/trpc-context'
import { describePortalError } from '@/components/portal-error'
import { listHref } from '@/components/articles/article-list-params'
import { LocalTime } from '@/components/local-time'
import type { AppRouter } from '@/lib/trpc/routers/app-router'
import { rotationRecommendedAfterDays } from '@/lib/tokens/api-token-schemas'
import { waitAge } from '@/lib/ops/wait-age'
import { liveListIntervalMs, liveListNote } from '@/components/live-list'
import styles from './desk.module.css'

type DeskData = inferRouterOutputs<AppRouter>['desk']['get']
type ArticleItem = DeskData['drafts']['items'][number]

/** The home page's desk: each section links to where its items are handled. */
export function Desk({ userId }: { userId: string }) {
  const trpc = useTRPC()
  const desk = useQuery(trpc.desk.get.queryOptions(undefined, { refetchInterval: liveListIntervalMs }))
  if (desk.isPending) return <p role="status">Loading your desk…</p>
  if (desk.isError) {
    return (
      <p className="alert error" role="alert">
        Your desk could not be loaded: {describePortalError(desk.error).message}
      </p>
    )
  }
  const { drafts, returned, taken_down: takenDown, review, in_review: inReview, upcoming, will_not_go_live: willNotGoLive, overdue, published, attention, expiring_licences: expiringLicences, image_problems: imageProblems } = desk.data
  // A scheduled story whose images may not be published then is skipped by the publication job: say so on it.
  const imageProblem = (article: { article_id: string }) =>
    imageProblems[article.article_id] ? (
      <span className="field-error" data-testid="scheduled-image-problem">
        {' '}
        It will not go live while its images may not be published: {imageProblems[article.article_id]}.
      </span>
    ) : null
  return (
    <>
    <p className="muted" data-testid="live-list-note">
      {liveListNote}
    </p>
    <div className={styles.grid}>
      {attention && <Attention attention={attention} />}
      {overdue && overdue.total > 0 && (
        <Section title="Overdue: did not go live" count={overdue.total}>
          <p className="alert error" data-testid="overdue-reason">
            {overdue.reason}
          </p>
          <ArticleItems
            items={overdue.items}
            empty=""
            when={(article) => (
              <>
                Scheduled for <LocalTime iso={article.scheduled_publish_at!} /> — overdue. Open it to publish now or reschedule.
                {imageProblem(article)}
              </>
            )}
          />
        </Section>
      )}
      {review && (
        <Section title="Waiting for your decision" count={review.total} more={{ href: listHref({ status: 'in-review' }), label: 'All articles in review' }}>
          <ArticleItems items={review.items} empty="Nothing is waiting for review." when={(article) => <>Submitted, last changed <LocalTime iso={article.updated_at} /></>} />
        </Section>
      )}
      {willNotGoLive && willNotGoLive.items.length > 0 && (
        <Section title="Scheduled, but will not go live by itself" count={willNotGoLive.items.length}>
          <p className="alert warning" data-testid="will-not-go-live-reason">
            {willNotGoLive.reason}
          </p>
          <ArticleItems
            items={willNotGoLive.items}
            empty=""
            when={(article) => (
              <>
                Scheduled for <LocalTime iso={article.scheduled_publish_at!} /> — will not go live by itself.
                {imageProblem(article)}
              </>
            )}
          />
        </Section>
      )}
      {/* With no queue to run them, no publication is "going live": that list would promise what will not happen. */}
      {upcoming && !willNotGoLive && (
        <Section title="Going live in the next 24 hours" count={upcoming.length}>
          <ArticleItems items={upcoming} empty="No publications are scheduled for the next 24 hours." when={(article) => <>Scheduled for <LocalTime iso={article.scheduled_publish_at!} />{imageProblem(article)}</>} />
        </Section>
      )}
      {inReview && (
        <Section title="Your articles in review" count={inReview.total} more={{ href: listHref({ status: 'in-review', author_id: userId }), label: 'All your articles in review' }}>
          <ArticleItems items={inReview.items} empty="None of your articles is waiting for review." when={(article) => <>Submitted, last changed <LocalTime iso={article.updated_at} /></>} />
        </Section>
      )}
      <Section title="Back from review" count={returned.length}>
        <ArticleItems items={returned} empty="None of your articles came back from review." when={(article) => (
            <>
              {article.returned_by ? `Sent back by ${article.returned_by}` : 'Returned'} <LocalTime iso={article.returned_at} />
              {article.return_note && <span data-testid="return-note">: {article.return_note}</span>}
            </>
          )}
        />
      </Section>
      {expiringLicences.total > 0 && <ExpiringLicences licences={expiringLicences} />}
      {takenDown.length > 0 && (
        <Section title="Taken off the site" count={takenDown.length}>
          <ArticleItems
            items={takenDown}
            empty=""
            when={(article) => (
              <>
                {article.status === 'archived' ? 'Archived' : 'Unpublished'}
                {article.taken_down_by ? ` by ${article.taken_down_by}` : ''} <LocalTime iso={article.taken_down_at} />
                {article.take_down_note && <span data-testid="take-down-note">: {article.take_down_note}</span>}
              </>
            )}
          />
        </Section>
      )}
      <Section title="Your drafts" count={drafts.total} more={{ href: listHref({ status: 'draft', author_id: userId }), label: 'All your drafts' }}>
        <ArticleItems items={drafts.items} empty="You have no drafts." when={(article) => <>Last changed <LocalTime iso={article.updated_at} /></>} />
      </Section>
      {published && (
        <Section title="Recently published" count={published.total} more={{ href: listHref({ status: 'published' }), label: 'All published articles' }}>
          <ArticleItems items={published.items} empty="Nothing has been published yet." when={(article) => <>Published <LocalTime iso={article.published_at!} /></>} />
        </Section>
      )}
    </div>
    </>
  )
}

function Section({ title, count, more, children }: { title: string; count: number; more?: { href: string; label: string }; children: ReactNode }) {
  const id = `desk-${title.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-')}`
  return (
    <section className={`card ${styles.section}`} aria-labelledby={id}>
      <h2 id={id}>
        {title} <span className={styles.count}>{count}</span>
      </h2>
      {children}
      {more && count > 0 && (
        <Link className={styles.more} href={more.href}>
          {more.label} →
        </Link>
      )}
    </section>
  )
}

function ArticleItems<T extends ArticleItem>({ items, empty, when }: { items: T[]; empty: string; when: (article: T) => ReactNode }) {
  if (items.length === 0) return <p className={styles.empty}>{empty}</p>
  return (
    <ul className={styles.items}>
      {items.map((article) => (
        <li key={article.article_id}>
          <Link href={`/articles/${article.article_id}`}>{article.headline}</Link>
          <span className={styles.meta}>{when(article)}</span>
        </li>
      ))}
    </ul>
  )
}

/** Images in live articles whose licence ends within 7 days, or ended (the site no longer shows them). */
function ExpiringLicences({ licences }: { licences: DeskData['expiring_licences'] }) {
  return (
    <Section title="Image licences ending" count={licences.total}>
      <ul className={styles.items} data-testid="expiring-licences">
        {licences.items.map((image) => (
          <li key={image.media_id}>
            <strong>
              <Link href={`/media?media=${encodeURIComponent(image.media_id)}`}>{image.filename}</Link>
            </strong>
            {image.credit && <span className={styles.meta}> ({image.credit})</span>}
            <span className={styles.meta}>
              {image.expired ? (
                <>
                  Licence ended <LocalTime iso={image.expires_at} /> — withheld from the site. Replace it or renew the licence.
                </>
              ) : (
                <>
                  Licence ends <LocalTime iso={image.expires_at} /> — the site stops showing it then.
                </>
              )}
            </span>
            <span className={styles.meta}>
              In{' '}
              {image.articles.map((article, index) => (
                <span key={article.article_id}>
                  {index > 0 && ', '}
                  <Link href={`/articles/${article.article_id}`}>{article.headline}</Link>
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </Section>
  )
}

const webhookReasons = {
  disabled: 'Disabled by the service after failed deliveries: events are not being delivered.',
  paused: 'Paused: deliveries wait until it is resumed.',
} as const

type AttentionWebhook = NonNullable<DeskData['attention']>['webhooks'][number]

/** What is true of a failed delivery: a test is never retried, a retry has a time, and retries run out. */
function failureWording(webhook: AttentionWebhook): ReactNode {
  if (webhook.last_delivery_was_test) return 'Its last delivery, a test event, failed. Tests are sent once and not retried: fix the receiver and send another test.'
  if (webhook.next_attempt_at)
    return (
      <>
        Its last delivery failed; the next attempt is <LocalTime iso={webhook.next_attempt_at} />.
      </>
    )
  return 'Its last delivery failed and will not be retried. Redeliver it from the subscription’s page once the receiver works.'
}

const keyReasons = {
  owner_inactive: 'Its owner was deactivated, so every request with it is refused. Revoke it or replace it.',
  rotation_due: `Older than the ${rotationRecommendedAfterDays}-day rotation advice: create a replacement and revoke this one.`,
} as const

function Backlog({ backlog }: { backlog: NonNullable<DeskData['attention']>['backlog'] }) {
  const holds = [
    backlog.other_events > 0 && `${backlog.other_events} ${backlog.other_events === 1 ? 'event' : 'events'} for webhook deliveries and cache purges`,
    backlog.scheduled_publications > 0 && `${backlog.scheduled_publications} scheduled ${backlog.scheduled_publications === 1 ? 'publication' : 'publications'}`,
  ].filter(Boolean)
  return (
    <li data-testid="outbox-backlog">
      <Link href="/settings/webhooks/waiting-events">
        {backlog.waiting === 0
          ? 'Events are not being delivered'
          : `${backlog.waiting} ${backlog.waiting === 1 ? 'event is' : 'events are'} waiting in the outbox${backlog.oldest_waiting_seconds !== null ? `, the oldest for ${waitAge(backlog.oldest_waiting_seconds)}` : ''}`}
      </Link>
      <span className={styles.meta}>
        {holds.length > 0 && `They hold up ${holds.join(' and ')}. `}
        {backlog.overdue_publications > 0 && `${backlog.overdue_publications} scheduled ${backlog.overdue_publications === 1 ? 'publication is' : 'publications are'} overdue. `}
        {backlog.advice}
      </span>
    </li>
  )
}

function Attention({ attention }: { attention: NonNullable<DeskData['attention']> }) {
  const { backlog } = attention
  // Events that wait briefly while a configured queue takes them are no trouble.
  const stuck = backlog.queue !== 'configured' ? backlog.waiting > 0 || backlog.overdue_publications > 0 : (backlog.oldest_waiting_seconds ?? 0) >= 120 || backlog.overdue_publications > 0
  const count = attention.webhooks.length + attention.keys.length + (stuck ? 1 : 0)
  return (
    <Section title="Needs your attention" count={count}>
      {count === 0 ? (
        <p className={styles.empty}>Every webhook subscription is delivering, no events are waiting, and every key is in good order.</p>
      ) : (
        <ul className={styles.items}>
          {stuck && <Backlog backlog={backlog} />}
          {attention.webhooks.map((webhook) => (
            <li key={webhook.webhook_id}>
              <Link href={`/settings/webhooks/${webhook.webhook_id}`}>Webhook to {webhook.url}</Link>
              <span className={styles.meta}>
                {webhook.reason === 'failing' ? failureWording(webhook) : webhookReasons[webhook.reason]}
                {webhook.last_delivery && (
                  <>
                    {' '}
                    Last attempt <LocalTime iso={webhook.last_delivery.at} />
                    {webhook.last_delivery.response_status !== null ? `: HTTP ${webhook.last_delivery.response_status}` : webhook.last_delivery.error ? `: ${webhook.last_delivery.error}` : ''}.
                  </>
                )}
              </span>
            </li>
          ))}
          {attention.keys.map((key) => (
            <li key={key.id}>
              <Link href={`/settings/api-keys/${key.id}`}>
                API key “{key.name}” ({key.prefix}…)
              </Link>
              <span className={styles.meta}>
                {keyReasons[key.reason]} Owner: {key.ownerName}.
              </span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
