'use client'

import { useState, type ComponentPropsWithRef } from 'react'
import styles from '../settings.module.css'
import fieldStyles from './webhooks.module.css'

/**
 * 32 random bytes from the browser's CSPRNG, hex-encoded: never sent anywhere but to the
 * service. No `whsec_` prefix: that would tell Standard Webhooks libraries to base64-decode
 * it, while our key is the secret's own bytes (docs/webhooks.md).
 */
export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

export function SecretField(props: {
  id: string
  label: string
  hint: string
  error?: string
  onGenerate: (secret: string) => void
  getValue: () => string
  inputProps: ComponentPropsWithRef<'input'>
}) {
  const [note, setNote] = useState('')
  const describedBy = [`${props.id}-hint`, props.error && `${props.id}-error`].filter(Boolean).join(' ')
  return (
    <div>
      <label htmlFor={props.id}>{props.label}</label>
      <div className={fieldStyles.secretRow}>
        <input id={props.id} type="text" autoComplete="off" spellCheck={false} aria-invalid={!!props.error} aria-describedby={describedBy} {...props.inputProps} />
        <button
          type="button"
          className="secondary"
          onClick={() => {
            props.onGenerate(generateSecret())
            setNote('A new secret was generated. Copy it to your receiver before you save.')
          }}
        >
          Generate
        </button>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            const value = props.getValue()
            if (!value) return setNote('There is no secret to copy yet.')
            try {
              await navigator.clipboard.writeText(value)
              setNote('Secret copied to the clipboard.')
            } catch {
              setNote('Copying was not allowed by the browser. Select the secret and copy it by hand.')
            }
          }}
        >
          Copy secret
        </button>
      </div>
      <p id={`${props.id}-hint`} className={styles.hint}>
        {props.hint}
      </p>
      <p role="status" aria-live="polite" className={styles.hint}>
        {note}
      </p>
      {props.error && (
        <p id={`${props.id}-error`} className="field-error">
          {props.error}
        </p>
      )}
    </div>
  )
}
