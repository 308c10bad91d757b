'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import type { ApiRequestRecord } from '@/lib/request-log/request-log-schemas'
import type { ApiKeyView } from '@/lib/trpc/routers/api-keys-router'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { formatDuration } from '../format'
import { refusalMessage } from '@/components/portal-error'
import styles from '../settings.module.css'

const pageSize = 25
const statusClasses = [
  { value: '', label: 'All' },
  { value: '2xx', label: 'Succeeded (2xx)' },
  { value: '4xx', label: 'Refused (4xx)' },
  { value: '5xx', label: 'Failed on our side (5xx)' },
] as const

function StatusBadge({ status }: { status: number }) {
  const tone = status < 400 ? styles.ok : status < 500 ? styles.warn : styles.danger
  return <span className={`${styles.badge} ${tone}`}>{status}</span>
}

/**
 * What a refusal by the key's own bounds was, in words: the log keeps the problem code, and an
 * expired key's 401 is told from an unknown secret's by when it came.
 */
function boundReading(entry: ApiRequestRecord, key: ApiKeyView | undefined): string | null {
  if (entry.problem_code === 'ip_not_allowed') return 'address not on the allowlist'
  if (entry.problem_code === 'unauthenticated' && key?.expiresAt && entry.created_at >= key.expiresAt) return 'key expired'
  if (entry.problem_code === 'unauthenticated' && key?.rolledAt && entry.created_at >= key.rolledAt) return 'old secret after a roll'
  return null
}

function RequestRow({ entry, apiKey }: { entry: ApiRequestRecord; apiKey: ApiKeyView | undefined }) {
  const reading = boundReading(entry, apiKey)
  return (
    <tr data-testid={`request-${entry.request_id}`}>
      <td data-label="Time" className={styles.date}>
        <LocalTime iso={entry.created_at} seconds />
      </td>
      <td data-label="Request" className={styles.mono}>
        {entry.method} {entry.route}
        {entry.query_keys.length > 0 && <span className="muted">?{entry.query_keys.join('&')}</span>}
      </td>
      <td data-label="Status">
        <StatusBadge status={entry.status} />
      </td>
      <td data-label="Problem">
        {entry.problem_code ? (
          <>
            <Link href={`/docs/api#error-${entry.problem_code}`} className={styles.mono}>
              {entry.problem_code}
            </Link>
            {reading && <div className={`${styles.small} muted`}>{reading}</div>}
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td data-label="From" className={styles.mono}>{entry.client_address ?? <span className="muted">—</span>}</td>
      <td data-label="Duration" className={styles.nowrap}>{formatDuration(entry.duration_ms)}</td>
      <td data-label="Request id" className={`${styles.mono} ${styles.small}`}>{entry.request_id}</td>
    </tr>
  )
}

/** A key's recent /v1 requests: what an integration developer checks after a 4xx. */
export function ApiKeyRequests({ tokenId }: { tokenId: string }) {
  const trpc = useTRPC()
  const [status, setStatus] = useState('')
  const [requestId, setRequestId] = useState('')
  // Pages go by cursor, which reaches every entry of the 30 days (offsets stop at 10,000): the
  // cursors of the older pages opened so far, so that "Newer" can go back one.
  const [olderPages, setOlderPages] = useState<string[]>([])
  const cursor = olderPages.at(-1)
  // The same query as the heading's (one request): its bounds explain the log's refusals.
  const apiKey = useQuery(trpc.apiKeys.get.queryOptions({ id: tokenId }))
  const requests = useQuery(
    {
      ...trpc.apiKeys.requests.queryOptions({ token_id: tokenId, limit: pageSize, offset: 0, ...(cursor && { cursor }), ...(status && { status }), ...(requestId.trim() && { request_id: requestId.trim() }) }),
      // The newest page follows the key's traffic, like a tail; older pages hold still.
      refetchInterval: cursor ? false : 5_000,
    },
  )

  return (
    <section aria-labelledby="requests-heading">
      <h2 id="requests-heading">Recent requests</h2>
      <p className={styles.intro}>
        Every request made with this key in the last 30 days: the route and the names of its query parameters (never their values or the body), the
        status and, for a refused request, its problem code. Requests appear about a second after they are answered.
      </p>
      <form className={styles.inlineForm} role="search" aria-label="Filter requests" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value)
              setOlderPages([])
            }}
          >
            {statusClasses.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Request id{' '}
          <input
            type="search"
            value={requestId}
            placeholder="req_…"
            spellCheck={false}
            onChange={(event) => {
              setRequestId(event.target.value)
              setOlderPages([])
            }}
          />
        </label>
      </form>
      {requests.isError ? (
        <p role="alert">{refusalMessage(requests.error)}</p>
      ) : !requests.data ? (
        <p className="muted" aria-busy="true">
          Loading requests…
        </p>
      ) : requests.data.items.length === 0 && !cursor ? (
        <p className="muted">{status || requestId ? 'No request matches these filters.' : 'This key has not made any request in the last 30 days.'}</p>
      ) : (
        <>
          <div className={styles.tableWrap}>
            <table>
              <caption className={styles.visuallyHidden}>Recent requests of this key</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Request</th>
                  <th scope="col">Status</th>
                  <th scope="col">Problem</th>
                  <th scope="col">From</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                {requests.data.items.map((entry) => (
                  <RequestRow key={entry.request_id} entry={entry} apiKey={apiKey.data} />
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Request pages" className={styles.pager}>
            <button type="button" className="secondary" disabled={!cursor} onClick={() => setOlderPages((opened) => opened.slice(0, -1))}>
              ← Newer
            </button>
            <span className="muted">
              {requests.data.items.length === 0
                ? 'No older requests'
                : `${requests.data.offset + 1}–${requests.data.offset + requests.data.items.length} of ${requests.data.total}`}
            </span>
            <button type="button" className="secondary" disabled={!requests.data.next_cursor} onClick={() => setOlderPages((opened) => [...opened, requests.data.next_cursor!])}>
              Older →
            </button>
          </nav>
        </>
      )}
    </section>
  )
}
