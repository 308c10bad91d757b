'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { DepartmentView } from '@/lib/trpc/routers/departments-router'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'
import { AddDepartmentForm } from './add-department-form'
import { DepartmentRow } from './department-row'

export function DepartmentManager() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const departments = useQuery(trpc.departments.list.queryOptions())
  const [status, setStatus] = useState<Status>(null)
  const [pending, setPending] = useState<DepartmentView | null>(null)

  const done = async (next: Status) => {
    setStatus(next?.kind === 'error' ? { ...next, focus: true } : next)
    await queryClient.invalidateQueries(trpc.departments.list.queryFilter())
  }

  const remove = useMutation(
    trpc.departments.remove.mutationOptions({
      onSuccess: async () => {
        const name = pending?.name
        setPending(null)
        await done({ kind: 'success', text: `Removed the department “${name}”.`, focus: true })
      },
    }),
  )

  return (
    <>
      <StatusMessage status={status} />
      <AddDepartmentForm onDone={done} />
      <section aria-labelledby="departments-heading">
        <h2 id="departments-heading">Departments</h2>
        {departments.isPending && <p className="muted">Loading departments…</p>}
        {departments.isError && <p className="alert error" role="alert">The departments could not be loaded. {refusalMessage(departments.error)}</p>}
        {departments.data?.length === 0 && <p className="muted">No departments yet.</p>}
        {departments.data && departments.data.length > 0 && (
          <div className={styles.tableWrap}>
            <table>
              <caption className={styles.visuallyHidden}>Departments and how many articles use each</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Articles</th>
                  <th scope="col"><span className={styles.visuallyHidden}>Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {departments.data.map((department) => (
                  <DepartmentRow
                    key={`${department.id}:${department.name}`}
                    department={department}
                    onDone={done}
                    onRemove={(target) => {
                      remove.reset()
                      setPending(target)
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <ConfirmDialog
        open={pending !== null}
        title={`Remove “${pending?.name ?? ''}”?`}
        confirmLabel="Remove department"
        busyLabel="Removing…"
        busy={remove.isPending}
        error={remove.isError ? refusalMessage(remove.error) : null}
        onCancel={() => setPending(null)}
        onConfirm={() => pending && remove.mutate({ departmentId: pending.id })}
      >
        <p>
          {pending && pending.articleCount > 0
            ? `${pending.articleCount === 1 ? '1 article uses' : `${pending.articleCount} articles use`} this department, so it cannot be removed until they are moved to another one.`
            : 'No article uses this department. Removing it cannot be undone, but you can add it again later.'}
        </p>
      </ConfirmDialog>
    </>
  )
}
