'use client'

import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ArticleLock, LeaseAnswer, PortalLock } from '@/lib/articles/edit-lease'
import type { ArticleWatch } from '@/lib/articles/watch-article'
import { leaseHeartbeatSeconds, watchHoldSeconds, watchIntervalSeconds } from '@/lib/articles/lease-timing'
import { useTRPC } from '@/components/trpc-context'
import { portalRequestHeader } from '@/lib/security/same-origin'
import { changeNotice } from '@/lib/articles/change-notice'
import { changedAfterClaimEnded, leaseBeganAfterClaimEnded } from '@/lib/articles/lease-lapse'

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
  | { status: 'lost'; lock: ArticleLock | null; taker: Taker }

/**
 * Who took the lease from this editor, and since when (unknown when only their save was seen).
 * `lapsed`: nobody took it over: this page's own claim had lapsed (no heartbeat got through for
 * the lease's length: a laptop asleep, a tab left open overnight) before they began editing.
 */
export type Taker = { name: string; since: string | null; lapsed?: boolean }

/** Whether someone else's lease began only once this page's own claim (`mine`, as last renewed) had lapsed, and not by taking this editor's live lease (lease-lapse.ts). */
function beganAfterLapse(mine: LeaseState, lock: PortalLock, editorId: string): boolean {
  return mine.status === 'mine' && leaseBeganAfterClaimEnded(lock, mine.lock.expires_at, editorId)
}

/** A change made elsewhere: its version and the notice naming who did what (changeNotice). */
export type ArticleChange = { version: number; by: string | null; notice: string }

const releaseRequest = (articleId: string, session: string) =>
  fetch('/api/trpc/articles.releaseLease', {
    method: 'POST',
    keepalive: true,
    headers: { 'content-type': 'application/json', [portalRequestHeader]: '1' },
    body: JSON.stringify({ article_id: articleId, session }),
  }).catch(() => undefined)

/** A random id for this page's editing session (getRandomValues: also outside a secure context). */
function newEditingSession(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * The editor's side of the edit lease (lib/articles/edit-lease.ts). The portal claims it with
 * the first unsaved edit, not when the page opens: a lease says "someone has unsaved work in this
 * article", so a page left open to read, or a writer's tab after they submitted, blocks nobody
 * (an editor approving a submitted story would otherwise have to take it over first). It is
 * renewed every 30 s while held (both through POST /api/articles/{id}/lease, portal-lease-route.ts),
 * and released when the edits are saved or discarded and when the page goes (a keepalive
 * request, which outlives the tab's closing). Each claim and release names this page's editing
 * session: the same person's other tab with unsaved edits keeps the lease when this one saves.
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
  const [session] = useState(newEditingSession)
  const [state, setStateNow] = useState<LeaseState>({ status: 'none' })
  const current = useRef<LeaseState>(state)
  const setState = useCallback((next: LeaseState) => {
    current.current = next
    setStateNow(next)
  }, [])
  // What became of a lease this page saw held (by someone else, or taken from it): released,
  // lapsed, taken over and saved. Shown until the next change of lease.
  const [leaseNotice, setLeaseNotice] = useState<string | null>(null)
  const dirtyNow = useRef(false)
  const showHistory = useCallback(() => void queryClient.invalidateQueries(trpc.articles.history.queryFilter({ article_id: articleId })), [queryClient, trpc, articleId])
  const loseTo = useCallback(
    (taker: Taker, lock: ArticleLock | null) => {
      setState({ status: 'lost', lock, taker })
      setLeaseNotice(null)
      // The take-over is a History entry: this page shows it as the taker's does.
      showHistory()
    },
    [setState, showHistory],
  )
  /** The lease taken from this page is free again: edit again, and take it back if edits are waiting. */
  const regainRef = useRef<(taker: Taker, version: number, takenBackElsewhere?: boolean) => void>(() => undefined)
  const regain = (taker: Taker, version: number, takenBackElsewhere = false) => regainRef.current(taker, version, takenBackElsewhere)
  const claim = useCallback(async ({ takeOver }: { takeOver: boolean }): Promise<LeaseAnswer> => {
    const response = await fetch(`/api/articles/${encodeURIComponent(articleId)}/lease`, {
      method: 'POST',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', [portalRequestHeader]: '1' },
      body: JSON.stringify(takeOver ? { take_over: true, session } : { session }),
    })
    if (!response.ok) throw new Error(`The lease was not answered (${response.status}).`)
    return (await response.json()) as LeaseAnswer
  }, [articleId, session])
  // Someone else's lease as last seen (the article as opened, then each poll): a page opened
  // while another person edits says so at once, before anyone types.
  const [polledLock, setPolledLock] = useState<ArticleLock | null | undefined>(undefined)
  const othersLock = polledLock !== undefined ? polledLock : openedLock

  const ask = useCallback(
    async (takeOver: boolean) => {
      const answer = await claim({ takeOver })
      if (answer.mine) {
        setState({ status: 'mine', lock: answer.lock })
        // Taking it over answers any notice about it; taking it back after a take-over keeps saying why.
        if (takeOver) setLeaseNotice(null)
      }
      // A heartbeat that finds someone else holding it: they took it over.
      else if (current.current.status === 'mine' || current.current.status === 'lost')
        loseTo({ name: answer.lock.holder_name, since: answer.lock.since, lapsed: current.current.status === 'lost' ? current.current.taker.lapsed : beganAfterLapse(current.current, answer.lock, userId) }, answer.lock)
      else setState({ status: 'held', lock: answer.lock })
      if (answer.took_over_from) showHistory()
    },
    [claim, setState, loseTo, showHistory, userId],
  )

  const regainNow = useCallback((taker: Taker, version: number, takenBackElsewhere = false) => {
    setState({ status: 'none' })
    const what = takenBackElsewhere ? 'You took this article back in another window' : taker.lapsed ? `Your hold on this article lapsed while this page was away; ${taker.name} had it open in an editor meanwhile and has since let go` : `${taker.name} took over editing and has since let go`
    setLeaseNotice(
      `${what} (version ${version}). You can edit again${dirtyNow.current ? ': what you typed is still in the form, and saving it combines it with their changes' : ''}.`,
    )
    if (dirtyNow.current && editable) {
      setState({ status: 'claiming' })
      ask(false).catch(() => setState({ status: 'none' }))
    }
  }, [setState, editable, ask])
  useEffect(() => {
    regainRef.current = regainNow
  }, [regainNow])

  /** The form's unsaved state changed: the first edit claims the lease, a save or discard lets it go. */
  const dirtyChanged = useCallback(
    (dirty: boolean) => {
      dirtyNow.current = dirty
      const status = current.current.status
      if (dirty && editable && status === 'none') {
        setState({ status: 'claiming' })
        ask(false).catch(() => setState({ status: 'none' }))
      }
      if (!dirty && status === 'mine') {
        setState({ status: 'none' })
        void releaseRequest(articleId, session)
      }
    },
    [editable, ask, articleId, session, setState],
  )

  // Renewed while held; released when the page goes away (navigation or the tab closing).
  const mine = state.status === 'mine'
  useEffect(() => {
    if (!mine) return
    const beat = setInterval(() => void ask(false).catch(() => undefined), heartbeatMs)
    const leave = () => void releaseRequest(articleId, session)
    window.addEventListener('pagehide', leave)
    return () => {
      clearInterval(beat)
      window.removeEventListener('pagehide', leave)
      // Leaving the page within the portal (after losing the lease this releases nothing).
      if (current.current.status === 'mine') leave()
    }
  }, [mine, ask, articleId, session])

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
      const status = current.current.status
      const newer = seen.current.version !== undefined && answer.version > seen.current.version
      const byOther = Boolean(answer.last_change?.actor_id && answer.last_change.actor_id !== userId)
      if (newer) {
        seen.current.version = answer.version
        onChange({ version: answer.version, by: answer.last_change?.actor_name ?? answer.edited_by, notice: changeNotice(answer.last_change, userId) })
      }
      setPolledLock(answer.lock)
      if (status === 'mine' && answer.lock && answer.lock.holder_id !== userId)
        return loseTo({ name: answer.lock.holder_name, since: answer.lock.since, lapsed: beganAfterLapse(current.current, answer.lock, userId) }, answer.lock)
      // Someone else saved while this page held the lease: only a take-over (or an override)
      // lets them, though they may have saved and let go before this poll saw their lease.
      // (A write that overrode the lease, e.g. /v1 with override_lock, leaves it with this page: no take-over then.)
      // Unless this page's own claim had lapsed by now (its heartbeats did not get through: a
      // laptop asleep): then they found it free, and the change notice says what they did.
      if (status === 'mine' && newer && byOther && answer.lock?.holder_id !== userId) {
        const mine = current.current as Extract<LeaseState, { status: 'mine' }>
        const taker = { name: answer.last_change?.actor_name ?? 'Someone', since: null, lapsed: changedAfterClaimEnded(answer.last_change, mine.lock.expires_at) }
        // Free again: taken back for the unsaved text (regain), never shown as taken from this page.
        if (taker.lapsed && !answer.lock) return regain(taker, answer.version)
        loseTo(taker, answer.lock)
        if (!answer.lock) regain(taker, answer.version)
        return
      }
      if (status === 'lost') {
        const taken = current.current as Extract<LeaseState, { status: 'lost' }>
        // The taker let go (saved and left, or their lease lapsed): this editor may edit again.
        if (!answer.lock) return regain(taken.taker, answer.version)
        // Taken back by this editor in another tab or window (break70): the lease is theirs again,
        // and this tab joins it for its unsaved text, as their other tabs do.
        if (answer.lock.holder_id === userId) return regain(taken.taker, answer.version, true)
        // Re-taken (by them again, or by someone else): the banner names who holds it now.
        if (answer.lock.holder_id !== userId && (answer.lock.holder_id !== taken.lock?.holder_id || answer.lock.since !== taken.lock?.since))
          setState({ status: 'lost', lock: answer.lock, taker: { name: answer.lock.holder_name, since: answer.lock.since, lapsed: taken.taker.lapsed } })
      }
      if (status === 'reading' || status === 'held') {
        const was = (current.current as Extract<LeaseState, { status: 'reading' | 'held' }>).lock
        // The holder let go (saved, or left) or the lease lapsed: the page may be edited again.
        if (!answer.lock) {
          setState({ status: 'none' })
          setLeaseNotice(`${was?.holder_name ?? 'The other editor'} stopped editing (saved, closed the article or went idle). You can edit it now.`)
        } else if (answer.lock.holder_id !== was?.holder_id || answer.lock.since !== was?.since) setState({ ...current.current, lock: answer.lock } as LeaseState)
      }
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
  }, [articleId, userId, onChange, setState, loseTo])

  const seenHeld = state.status === 'none' && othersLock && othersLock.holder_id !== userId
  return {
    state: seenHeld ? ({ status: 'held', lock: othersLock } as const) : state,
    notice: state.status === 'none' || state.status === 'mine' || state.status === 'claiming' ? leaseNotice : null,
    dirtyChanged,
    takeOver: () => ask(true),
    readOnly: () => setState({ status: 'reading', lock: 'lock' in current.current ? current.current.lock : (othersLock ?? null) }),
    /** After a write refused with article_locked: ask again, which finds who holds it now. */
    recheck: () => void ask(false).catch(() => undefined),
  }
}
