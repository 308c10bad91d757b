'use client'

import { useEffect, useId, useRef, useState, type ReactNode } from 'react'
import styles from './settings.module.css'

/**
 * Shows a secret the service will never show again (a new API token, a generated password)
 * with a copy button. The value lives only in the parent's state: leaving or reloading the
 * page drops it for good.
 */
export function OneTimeSecret(props: { title: string; valueLabel: string; value: string; copyLabel: string; children: ReactNode; testId?: string; focusOnShow?: boolean }) {
  const headingRef = useRef<HTMLHeadingElement>(null)
  const valueId = useId()
  const [copyStatus, setCopyStatus] = useState<string>('')

  // Move focus here when it appears, so keyboard and screen-reader users meet it first.
  const { focusOnShow = true } = props
  useEffect(() => {
    if (focusOnShow) headingRef.current?.focus()
  }, [focusOnShow])

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.value)
      setCopyStatus('Copied to the clipboard.')
    } catch {
      setCopyStatus('Copying was not allowed by the browser. Select the value above and copy it by hand.')
    }
  }

  return (
    <section className={styles.secretBox} aria-labelledby={`${valueId}-heading`}>
      <h2 id={`${valueId}-heading`} ref={headingRef} tabIndex={-1}>
        {props.title}
      </h2>
      {props.children}
      <p className={styles.small} id={`${valueId}-label`}>
        <strong>{props.valueLabel}</strong>
      </p>
      <code id={valueId} className={styles.secretValue} aria-labelledby={`${valueId}-label`} data-testid={props.testId}>
        {props.value}
      </code>
      <div className={styles.actions}>
        <button type="button" onClick={copy}>
          {props.copyLabel}
        </button>
        <span role="status" aria-live="polite" className={styles.small}>
          {copyStatus}
        </span>
      </div>
    </section>
  )
}
