'use client'

import { useQuery } from '@tanstack/react-query'
import { apiStatuses } from '@/lib/articles/article-status'
import { useTRPC } from '@/components/trpc-context'
import styles from '../settings.module.css'
import pickerStyles from './webhooks.module.css'

type Errors = { departmentIds?: string; tags?: string; statuses?: string }

/** Toggles one value of a list, keeping the order of `all`. */
function toggled<T extends string>(all: readonly T[], chosen: readonly string[], value: T, on: boolean): T[] {
  const next = new Set(chosen)
  if (on) next.add(value)
  else next.delete(value)
  return all.filter((item) => next.has(item))
}

/**
 * The subscription's optional filters on article events: departments, tags (any of, any
 * spelling) and the status after the change. Events about no article are not narrowed; the
 * service applies the same rule when it fans events out (lib/webhooks/subscription-filter.ts).
 */
export function WebhookFilterFields(props: {
  departmentIds: string[]
  statuses: string[]
  onDepartmentIds: (value: string[]) => void
  onStatuses: (value: string[]) => void
  tagsInput: React.InputHTMLAttributes<HTMLInputElement>
  errors: Errors
}) {
  const trpc = useTRPC()
  const departments = useQuery(trpc.departments.list.queryOptions())
  const departmentIds = departments.data?.map((department) => department.id) ?? []
  return (
    <fieldset className={styles.fieldset}>
      <legend>Only these articles (optional)</legend>
      <p className={styles.hint}>
        Narrows the article and workflow events chosen above; leave a filter empty to receive them all. User events are not narrowed. A change applies to events from now on.
      </p>
      <fieldset className={pickerStyles.group} aria-describedby={props.errors.departmentIds ? 'webhook-departments-error' : undefined}>
        <legend>Departments</legend>
        {departments.isPending && <p className="muted">Loading departments…</p>}
        {departments.data?.length === 0 && <p className="muted">The newsroom has no departments.</p>}
        {departments.data?.map((department) => (
          <label key={department.id} className={styles.checkboxRow}>
            <input
              type="checkbox"
              name="department_ids"
              value={department.id}
              checked={props.departmentIds.includes(department.id)}
              onChange={(event) => props.onDepartmentIds(toggled(departmentIds, props.departmentIds, department.id, event.target.checked))}
            />
            <span>{department.name}</span>
          </label>
        ))}
        {props.errors.departmentIds && <p id="webhook-departments-error" className="field-error">{props.errors.departmentIds}</p>}
      </fieldset>
      <label htmlFor="webhook-tags">Tags (any of)</label>
      <input
        id="webhook-tags"
        type="text"
        autoComplete="off"
        placeholder="election, vote"
        aria-describedby={`webhook-tags-hint${props.errors.tags ? ' webhook-tags-error' : ''}`}
        aria-invalid={props.errors.tags !== undefined}
        {...props.tagsInput}
      />
      <p id="webhook-tags-hint" className={styles.hint}>Separate tags with commas. An article carrying any of them passes, whatever their spelling.</p>
      {props.errors.tags && <p id="webhook-tags-error" className="field-error">{props.errors.tags}</p>}
      <fieldset className={pickerStyles.group}>
        <legend>Status after the change</legend>
        {apiStatuses.map((status) => (
          <label key={status} className={styles.checkboxRow}>
            <input
              type="checkbox"
              name="statuses"
              value={status}
              checked={props.statuses.includes(status)}
              onChange={(event) => props.onStatuses(toggled(apiStatuses, props.statuses, status, event.target.checked))}
            />
            <span className={styles.mono}>{status}</span>
          </label>
        ))}
        {props.errors.statuses && <p className="field-error">{props.errors.statuses}</p>}
      </fieldset>
    </fieldset>
  )
}
