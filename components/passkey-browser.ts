'use client'

import { WebAuthnError } from '@simplewebauthn/browser'

/** What a failed browser prompt means to the person (the browser's own words are for developers). */
export function passkeyPromptFailure(error: unknown): string {
  const name = error instanceof WebAuthnError ? (error.cause as Error | undefined)?.name : (error as Error | undefined)?.name
  if (error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'This device already holds a passkey for your account.'
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey prompt was cancelled or timed out. Try again.'
  if (name === 'SecurityError') return 'This browser refused passkeys for this address. Open the portal at its usual address and try again.'
  if (name === 'NotSupportedError' || name === 'InvalidStateError') return 'This browser or device cannot use a passkey here.'
  return (error as Error | undefined)?.message ?? 'The passkey prompt failed.'
}
