import type { ReactNode } from 'react'
import styles from './settings.module.css'

/** What a Field hands its control: its id and the accessibility attributes tied to hint and error. */
export type FieldControl = { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }

/**
 * One way to show a form field: its label, the control, a hint and the error (client-side or
 * the server's, via applyServerFieldErrors), with the ids that tie them together, so a screen
 * reader reads the hint and the error with the control and every form looks the same.
 */
export function Field(props: { id: string; label: ReactNode; hint?: ReactNode; error?: string; children: (control: FieldControl) => ReactNode }) {
  const hintId = props.hint ? `${props.id}-hint` : undefined
  const errorId = props.error ? `${props.id}-error` : undefined
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children({ id: props.id, 'aria-invalid': props.error !== undefined, 'aria-describedby': describedBy })}
      {props.hint && (
        <p id={hintId} className={styles.hint}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p id={errorId} className="field-error">
          {props.error}
        </p>
      )}
    </>
  )
}
