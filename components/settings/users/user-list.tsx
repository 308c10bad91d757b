'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Role } from '@/lib/db/generated/enums'
import type { UserView } from '@/lib/trpc/routers/users-router'
import { roles } from '@/lib/users/user-schemas'
import { roleArticle } from '@/components/role-words'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { LocalTime } from '@/components/local-time'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

function RoleControl({ user, busy, onChange }: { user: UserView; busy: boolean; onChange: (role: Role) => void }) {
  const [role, setRole] = useState<Role>(user.role)
  const selectId = `role-${user.id}`
  return (
    <form
      className={`${styles.inlineForm} ${styles.compact}`}
      onSubmit={(event) => {
        event.preventDefault()
        if (role !== user.role) onChange(role)
      }}
    >
      <label htmlFor={selectId} className={styles.visuallyHidden}>
        Role of {user.name}
      </label>
      <select id={selectId} value={role} onChange={(event) => setRole(event.target.value as Role)}>
        {roles.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
      <button type="submit" className="secondary" disabled={busy || role === user.role} aria-label={`Change role of ${user.name}`}>
        Change role
      </button>
    </form>
  )
}

export function UserList({ currentUserId }: { currentUserId: string }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const users = useQuery(trpc.users.list.queryOptions())
  const [status, setStatus] = useState<Status>(null)
  const [pending, setPending] = useState<UserView | null>(null)
  const [resetting, setResetting] = useState<UserView | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.users.list.queryFilter())
  const announce = (next: NonNullable<Status>) => setStatus({ ...next, focus: true })

  const changeRole = useMutation(
    trpc.users.changeRole.mutationOptions({
      onSuccess: async (user) => {
        announce({ kind: 'success', text: `${user.name} is now ${roleArticle(user.role)} ${user.role}. Their session and API keys follow the new role at once.` })
        await refresh()
      },
      onError: (error) => announce({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  const deactivate = useMutation(
    trpc.users.deactivate.mutationOptions({
      onSuccess: async (user) => {
        setPending(null)
        announce({ kind: 'success', text: `${user.name} was deactivated: signed out and their API keys no longer work.` })
        await refresh()
      },
    }),
  )

  const resetFactors = useMutation(
    trpc.users.resetSecondFactors.mutationOptions({
      onSuccess: async () => {
        announce({ kind: 'success', text: `${resetting?.name ?? 'The member'}’s two-factor sign-in was reset: they are signed out and sign in with their password alone until they set it up again.` })
        setResetting(null)
        await refresh()
      },
    }),
  )

  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">People</h2>
      <StatusMessage status={status} />
      {users.isPending && <p className="muted">Loading people…</p>}
      {users.isError && <p className="alert error" role="alert">The people could not be loaded. {refusalMessage(users.error)}</p>}
      {users.data && (
        <div className={styles.tableWrap}>
          <table>
            <caption className={styles.visuallyHidden}>People of this newsroom</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col"><span className={styles.visuallyHidden}>Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <tr key={user.id} data-testid={`user-${user.email}`}>
                  <th scope="row">
                    {user.name} {user.id === currentUserId && <span className="muted">(you)</span>}
                  </th>
                  <td data-label="E-mail" className={styles.breakAll}>{user.email}</td>
                  <td data-label="Role">
                    {user.active ? (
                      // Keyed by role so the select starts from the saved role after every change.
                      <RoleControl key={user.role} user={user} busy={changeRole.isPending} onChange={(role) => changeRole.mutate({ userId: user.id, role })} />
                    ) : (
                      user.role
                    )}
                  </td>
                  <td data-label="Status">
                    {user.active ? (
                      <>
                        <span className={`${styles.badge} ${styles.ok}`}>Active</span>
                        {user.hasSecondFactor && <div className={`${styles.small} muted`}>Two-factor on</div>}
                      </>
                    ) : (
                      <>
                        <span className={`${styles.badge} ${styles.danger}`}>Deactivated</span>
                        {user.deactivatedAt && <div className={`${styles.small} muted`}><LocalTime iso={user.deactivatedAt} /></div>}
                      </>
                    )}
                  </td>
                  <td data-label="Added" className={styles.date}><LocalTime iso={user.createdAt} /></td>
                  <td>
                    {user.active && user.id !== currentUserId && (
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Deactivate ${user.name}`}
                        onClick={() => {
                          deactivate.reset()
                          setPending(user)
                        }}
                      >
                        Deactivate
                      </button>
                    )}{' '}
                    {user.active && user.hasSecondFactor && user.id !== currentUserId && (
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Reset two-factor of ${user.name}`}
                        onClick={() => {
                          resetFactors.reset()
                          setResetting(user)
                        }}
                      >
                        Reset two-factor
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={`Deactivate ${pending?.name ?? ''}?`}
        confirmLabel="Deactivate"
        busyLabel="Deactivating…"
        busy={deactivate.isPending}
        error={deactivate.isError ? refusalMessage(deactivate.error) : null}
        onCancel={() => setPending(null)}
        onConfirm={() => pending && deactivate.mutate({ userId: pending.id })}
      >
        <p>
          {pending?.name} ({pending?.email}) is signed out on their next click and can no longer sign in. Every API key they own stops
          working at once. Their articles stay.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={resetting !== null}
        title={`Reset two-factor of ${resetting?.name ?? ''}?`}
        confirmLabel="Reset two-factor"
        busyLabel="Resetting…"
        busy={resetFactors.isPending}
        error={resetFactors.isError ? refusalMessage(resetFactors.error) : null}
        onCancel={() => setResetting(null)}
        onConfirm={() => resetting && resetFactors.mutate({ userId: resetting.id })}
      >
        <p>
          Their authenticator app and recovery codes stop working and every session of theirs ends. They sign in with their password and set
          two-factor up again. Do this only once you are sure who asked (lost phone).
        </p>
      </ConfirmDialog>
    </section>
  )
}
