'use client'

import { useId, useRef, useState, type FormEvent } from 'react'
import { formatUtcInstant, localInputToIso, localTimeZone } from '@/lib/time/local-datetime'
import styles from './articles.module.css'

// A past time would publish at once (contract: Transition), which a schedule never means to do.
function scheduleProblem(instant: string | null): string | null {
  if (!instant) return 'Choose a date and a time.'
  if (Date.parse(instant) <= Date.now()) return 'Choose a time in the future, or use “Publish now”.'
  return null
}

type Props = {
  /** Why a schedule made now will not go live by itself (scheduledPublicationOutlook), or null. */
  warning: string | null
  disabled: boolean
  rescheduling: boolean
  onSchedule: (publishAt: string) => void
}

/**
 * A publication time picked in the reader's own zone. The browser turns the wall time into
 * the UTC instant, which is what is sent and stored; the hint shows that instant in UTC.
 */
export function ScheduleForm({ warning, disabled, rescheduling, onSchedule }: Props) {
  const id = useId()
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const instant = localInputToIso(value)

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const problem = scheduleProblem(instant)
    setError(problem)
    if (problem || !instant) {
      inputRef.current?.focus()
      return
    }
    onSchedule(instant)
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Schedule publication">
      <label htmlFor={`${id}-at`}>{rescheduling ? 'Move the publication to' : 'Publish at'}</label>
      <input
        id={`${id}-at`}
        ref={inputRef}
        type="datetime-local"
        value={value}
        onChange={(event) => {
          setValue(event.target.value)
          setError(null)
        }}
        aria-invalid={!!error}
        aria-describedby={`${id}-hint${warning ? ` ${id}-warning` : ''}${error ? ` ${id}-error` : ''}`}
      />
      <p id={`${id}-hint`} className={styles.hint}>
        Your time zone: {localTimeZone()}.{instant && ` That is ${formatUtcInstant(instant)}.`}
      </p>
      {warning && (
        <p id={`${id}-warning`} className="alert warning" data-testid="schedule-warning">
          {warning}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
      <div className={styles.actions}>
        <button type="submit" className="secondary" disabled={disabled}>
          {rescheduling ? 'Reschedule' : 'Schedule publication'}
        </button>
      </div>
    </form>
  )
}
