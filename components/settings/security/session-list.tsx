'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { PortalSessionView } from '@/lib/trpc/routers/security-router'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { refusalMessage } from '@/components/portal-error'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

/** The member's live sessions, this one first, each with "Sign out"; and "Sign out all other sessions". */
export function SessionList() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const sessions = useQuery(trpc.security.sessions.queryOptions())
  const [status, setStatus] = useState<Status>(null)
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.security.sessions.queryKey() })
  const endOne = useMutation(trpc.security.endSession.mutationOptions())
  const endOthers = useMutation(trpc.security.endOtherSessions.mutationOptions())

  async function signOut(session: PortalSessionView) {
    setStatus(null)
    try {
      await endOne.mutateAsync({ sessionId: session.id })
      setStatus({ kind: 'success', text: `Signed out ${session.device} (${session.clientAddress || 'unknown address'}). It ends on its next request.`, focus: true })
      await refresh()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  const [confirmingOthers, setConfirmingOthers] = useState(false)
  async function signOutOthers() {
    setStatus(null)
    try {
      const { ended } = await endOthers.mutateAsync()
      setConfirmingOthers(false)
      setStatus({ kind: 'success', text: ended === 1 ? 'Signed out 1 other session.' : `Signed out ${ended} other sessions.`, focus: true })
      await refresh()
    } catch (error) {
      setConfirmingOthers(false)
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  const others = sessions.data?.filter((session) => !session.current) ?? []
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <StatusMessage status={status} />
      {sessions.isError ? (
        <p role="alert">{refusalMessage(sessions.error)}</p>
      ) : !sessions.data ? (
        <p className="muted" aria-busy="true">
          Loading sessions…
        </p>
      ) : (
        <>
          <div className={styles.tableWrap}>
            <table>
              <caption className={styles.visuallyHidden}>Your active sessions</caption>
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Address</th>
                  <th scope="col">Signed in</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">
                    <span className={styles.visuallyHidden}>Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {sessions.data.map((session) => (
                  <tr key={session.id} data-testid={`session-${session.current ? 'current' : 'other'}`}>
                    <th scope="row" title={session.userAgent}>
                      {session.device}
                      {session.current && (
                        <>
                          {' '}
                          <span className={`${styles.badge} ${styles.ok}`}>This browser</span>
                        </>
                      )}
                    </th>
                    <td data-label="Address" className={styles.mono}>{session.clientAddress || <span className="muted">Unknown</span>}</td>
                    <td data-label="Signed in" className={styles.date}>
                      <LocalTime iso={session.createdAt} />
                    </td>
                    <td data-label="Last seen" className={styles.date}>
                      <LocalTime iso={session.lastSeenAt} />
                    </td>
                    <td>
                      {!session.current && (
                        <button type="button" className="secondary" disabled={endOne.isPending} onClick={() => signOut(session)} aria-label={`Sign out ${session.device} at ${session.clientAddress}`}>
                          Sign out
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className={styles.actions}>
            <button type="button" className="secondary" disabled={others.length === 0 || endOthers.isPending} onClick={() => setConfirmingOthers(true)}>
              Sign out all other sessions
            </button>
          </div>
          <ConfirmDialog
            open={confirmingOthers}
            title="Sign out all other sessions?"
            confirmLabel={others.length === 1 ? 'Sign out 1 session' : `Sign out ${others.length} sessions`}
            busyLabel="Signing out…"
            busy={endOthers.isPending}
            onCancel={() => setConfirmingOthers(false)}
            onConfirm={() => void signOutOthers()}
          >
            <p>
              {others.length === 1 ? 'The other browser or device' : `The ${others.length} other browsers and devices`} listed above must sign in again, with your
              password and second factor; unsaved work there is lost. This browser stays signed in.
            </p>
          </ConfirmDialog>
        </>
      )}
    </section>
  )
}
