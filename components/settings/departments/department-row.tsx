'use client'

import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import type { DepartmentView } from '@/lib/trpc/routers/departments-router'
import { useTRPC } from '@/components/trpc-context'
import { fieldErrorsOf, refusalMessage } from '@/components/portal-error'
import type { Status } from '../status-message'
import styles from '../settings.module.css'

/** One department: its name, which turns into a field for renaming, and its actions. */
export function DepartmentRow(props: { department: DepartmentView; onDone: (status: Status) => Promise<void> | void; onRemove: (department: DepartmentView) => void }) {
  const { department } = props
  const trpc = useTRPC()
  const [editing, setEditing] = useState(false)
  const [name, setName] = useState(department.name)
  const [error, setError] = useState<string | null>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const renameButtonRef = useRef<HTMLButtonElement>(null)
  const rename = useMutation(trpc.departments.rename.mutationOptions())
  const inputId = `rename-${department.id}`

  useEffect(() => {
    if (editing) inputRef.current?.focus()
  }, [editing])

  function stopEditing() {
    setEditing(false)
    setError(null)
    setName(department.name)
    requestAnimationFrame(() => renameButtonRef.current?.focus())
  }

  async function save() {
    try {
      const renamed = await rename.mutateAsync({ departmentId: department.id, name })
      setEditing(false)
      setError(null)
      await props.onDone({ kind: 'success', text: `Renamed “${department.name}” to “${renamed.name}”. Its articles keep it.` })
    } catch (caught) {
      const field = fieldErrorsOf(caught).find((candidate) => candidate.field === 'name')
      setError(field?.message ?? refusalMessage(caught))
      inputRef.current?.focus()
    }
  }

  return (
    <tr data-testid={`department-${department.name}`}>
      <th scope="row">
        {editing ? (
          <form
            className={styles.inlineForm}
            onSubmit={(event) => {
              event.preventDefault()
              void save()
            }}
            onKeyDown={(event) => {
              if (event.key === 'Escape') stopEditing()
            }}
          >
            <label htmlFor={inputId} className={styles.visuallyHidden}>
              New name for {department.name}
            </label>
            <input
              ref={inputRef}
              id={inputId}
              value={name}
              onChange={(event) => setName(event.target.value)}
              aria-invalid={!!error}
              aria-describedby={error ? `${inputId}-error` : undefined}
              autoComplete="off"
            />
            <button type="submit" disabled={rename.isPending}>
              {rename.isPending ? 'Saving…' : 'Save'}
            </button>
            <button type="button" className="secondary" onClick={stopEditing}>
              Cancel
            </button>
            {error && (
              <p id={`${inputId}-error`} className="field-error" role="alert">
                {error}
              </p>
            )}
          </form>
        ) : (
          department.name
        )}
      </th>
      <td>{department.articleCount === 1 ? '1 article' : `${department.articleCount} articles`}</td>
      <td>
        {!editing && (
          <div className={styles.rowActions}>
            <button ref={renameButtonRef} type="button" className="secondary" onClick={() => setEditing(true)} aria-label={`Rename ${department.name}`}>
              Rename
            </button>
            <button type="button" className="secondary" onClick={() => props.onRemove(department)} aria-label={`Remove ${department.name}`}>
              Remove
            </button>
          </div>
        )}
      </td>
    </tr>
  )
}
