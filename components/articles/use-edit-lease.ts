'use client'

import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ArticleLock, LeaseAnswer } from '@/lib/articles/edit-lease'
import type { ArticleWatch } from '@/lib/articles/watch-article'
import { leaseHeartbeatSeconds, watchHoldSeconds, watchIntervalSeconds } from '@/lib/articles/lease-timing'
import { useTRPC } from '@/components/trpc-context'
import { portalRequestHeader } from '@/lib/security/same-origin'

const watchIntervalMs = watchIntervalSeconds * 1000
const heartbeatMs = leaseHeartbeatSeconds * 1000

/**
 * none: nobody's lease is known to this page. mine: this editor holds the lease. held: someone
 * else had it when this person began to edit (the page offers read-only or take over). reading:
 * the person chose read-only. lost: someone took it over while this editor had it; the form turns
 * read-only and keeps what was typed.
 */
export type LeaseState =
  | { status: 'none' }
  | { status: 'claiming' }
  | { status: 'mine'; lock: ArticleLock }
  | { status: 'held'; lock: ArticleLock }
  | { status: 'reading'; lock: ArticleLock | null }
  | { status: 'lost'; lock: ArticleLock }

export type ArticleChange = { version: number; by: string | null }

const releaseRequest = (articleId: string) =>
  fetch('/api/trpc/articles.releaseLease', { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json', [portalRequestHeader]: '1' }, body: JSON.stringify({ article_id: articleId }) }).catch(() => undefined)

/**
 * The editor's side of the edit lease (lib/articles/edit-lease.ts). The portal claims it with
 * the first unsaved edit, not when the page opens: a lease says "someone has unsaved work in this
 * article", so a page left open to read, or a writer's tab after they submitted, blocks nobody
 * (an editor approving a submitted story would otherwise have to take it over first). It is
 * renewed every 30 s while held (both through POST /api/articles/{id}/lease, portal-lease-route.ts),
 * and released when the edits are saved or discarded and when the page goes (a keepalive
 * request, which outlives the tab's closing).
 *
 * The page also keeps asking GET /api/articles/{id}/watch (portal-watch-route.ts, not
 * tRPC: it is the portal's most frequent request) with the tag of the article's state it last saw
 * as If-None-Match and `Prefer: wait=25`: the server holds the poll until something the page shows
 * changes (a new version, a new lease holder: a 200) or 25 s pass (a 304), and the page asks again.
 */
export function useEditLease(
  articleId: string,
  userId: string,
  { editable, shownVersion, openedLock, onChange }: { editable: boolean; shownVersion: number | undefined; openedLock: ArticleLock | null | undefined; onChange: (change: ArticleChange) => void },
) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [state, setStateNow] = useState<LeaseState>({ status: 'none' })
  const current = useRef<LeaseState>(state)
  const setState = useCallback((next: LeaseState) => {
    current.current = next
    setStateNow(next)
  }, [])
  const claim = useCallback(async ({ takeOver }: { takeOver: boolean }): Promise<LeaseAnswer> => {
    const response = await fetch(`/api/articles/${encodeURIComponent(articleId)}/lease`, {
      method: 'POST',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', [portalRequestHeader]: '1' },
      body: JSON.stringify(takeOver ? { take_over: true } : {}),
    })
    if (!response.ok) throw new Error(`The lease was not answered (${response.status}).`)
    return (await response.json()) as LeaseAnswer
  }, [articleId])
  // Someone else's lease as last seen (the article as opened, then each poll): a page opened
  // while another person edits says so at once, before anyone types.
  const [polledLock, setPolledLock] = useState<ArticleLock | null | undefined>(undefined)
  const othersLock = polledLock !== undefined ? polledLock : openedLock

  const ask = useCallback(
    async (takeOver: boolean) => {
      const answer = await claim({ takeOver })
      if (answer.mine) setState({ status: 'mine', lock: answer.lock })
      // A heartbeat that finds someone else holding it: they took it over.
      else setState(current.current.status === 'mine' ? { status: 'lost', lock: answer.lock } : { status: 'held', lock: answer.lock })
      if (answer.took_over_from) void queryClient.invalidateQueries(trpc.articles.history.queryFilter({ article_id: articleId }))
    },
    [claim, articleId, setState, queryClient, trpc],
  )

  /** The form's unsaved state changed: the first edit claims the lease, a save or discard lets it go. */
  const dirtyChanged = useCallback(
    (dirty: boolean) => {
      const status = current.current.status
      if (dirty && editable && status === 'none') {
        setState({ status: 'claiming' })
        ask(false).catch(() => setState({ status: 'none' }))
      }
      if (!dirty && status === 'mine') {
        setState({ status: 'none' })
        void releaseRequest(articleId)
      }
    },
    [editable, ask, articleId, setState],
  )

  // Renewed while held; released when the page goes away (navigation or the tab closing).
  const mine = state.status === 'mine'
  useEffect(() => {
    if (!mine) return
    const beat = setInterval(() => void ask(false).catch(() => undefined), heartbeatMs)
    const leave = () => void releaseRequest(articleId)
    window.addEventListener('pagehide', leave)
    return () => {
      clearInterval(beat)
      window.removeEventListener('pagehide', leave)
      // Leaving the page within the portal (after losing the lease this releases nothing).
      if (current.current.status === 'mine') leave()
    }
  }, [mine, ask, articleId])

  // Awareness: another save, a move, a publication or a take-over shows within one interval.
  const seen = useRef<{ version: number | undefined; tag: string | undefined }>({ version: undefined, tag: undefined })
  useEffect(() => {
    if (shownVersion !== undefined && (seen.current.version === undefined || shownVersion > seen.current.version)) seen.current.version = shownVersion
  }, [shownVersion])
  useEffect(() => {
    let stopped = false
    const abandon = new AbortController()
    const poll = async () => {
      const known = seen.current.tag
      // With the tag it last saw, the page asks the server to hold the poll until something it shows changes.
      const headers: Record<string, string> = known ? { 'if-none-match': `"${known}"`, prefer: `wait=${watchHoldSeconds}` } : {}
      const response = await fetch(`/api/articles/${encodeURIComponent(articleId)}/watch`, { cache: 'no-store', headers, signal: abandon.signal })
      // 304: nothing this page shows changed since the tag it last saw.
      if (stopped || response.status === 304 || !response.ok) return
      const answer = (await response.json()) as ArticleWatch
      if (stopped || answer.unchanged) return
      seen.current.tag = answer.tag
      if (seen.current.version !== undefined && answer.version > seen.current.version) {
        seen.current.version = answer.version
        onChange({ version: answer.version, by: answer.edited_by })
      }
      setPolledLock(answer.lock)
      const status = current.current.status
      if (status === 'mine' && answer.lock && answer.lock.holder_id !== userId) setState({ status: 'lost', lock: answer.lock })
      // The holder let go (saved, or left): the page may be edited again.
      if ((status === 'reading' || status === 'held') && !answer.lock) setState({ status: 'none' })
    }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    void (async () => {
      while (!stopped) {
        const asked = Date.now()
        if (document.visibilityState === 'visible') await poll().catch(() => undefined)
        // A held poll asks again at once; one answered at once (the first, a change, a failure, a
        // hidden tab) waits out the interval, so a failing server is not asked in a tight loop.
        const waited = Date.now() - asked
        if (!stopped && waited < watchIntervalMs) await pause(watchIntervalMs - waited)
      }
    })()
    return () => {
      stopped = true
      abandon.abort()
    }
  }, [articleId, userId, onChange, setState])

  const seenHeld = state.status === 'none' && othersLock && othersLock.holder_id !== userId
  return {
    state: seenHeld ? ({ status: 'held', lock: othersLock } as const) : state,
    dirtyChanged,
    takeOver: () => ask(true),
    readOnly: () => setState({ status: 'reading', lock: 'lock' in current.current ? current.current.lock : (othersLock ?? null) }),
    /** After a write refused with article_locked: ask again, which finds who holds it now. */
    recheck: () => void ask(false).catch(() => undefined),
  }
}
