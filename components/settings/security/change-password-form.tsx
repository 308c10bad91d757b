'use client'

import { zodResolver } from '@hookform/resolvers/zod'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { changePasswordSchema, type ChangePasswordInput } from '@/lib/auth/security-schemas'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { StatusMessage, type Status } from '../status-message'
import { Field } from '../field'
import styles from '../settings.module.css'

/** Current and new password; success signs out every other session of the member. */
export function ChangePasswordForm() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<Status>(null)
  const form = useForm<ChangePasswordInput>({ resolver: zodResolver(changePasswordSchema), defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' } })
  const change = useMutation(trpc.security.changePassword.mutationOptions())
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    setStatus(null)
    try {
      const { endedSessions } = await change.mutateAsync(values)
      form.reset()
      setStatus({
        kind: 'success',
        text: `Password changed.${endedSessions ? ` ${endedSessions === 1 ? '1 other session was' : `${endedSessions} other sessions were`} signed out.` : ''}`,
        focus: true,
      })
      await queryClient.invalidateQueries({ queryKey: trpc.security.sessions.queryKey() })
    } catch (error) {
      if (!applyServerFieldErrors(form, error, ['currentPassword', 'newPassword', 'confirmPassword'])) setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  })

  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Change your password</h2>
      <form method="post" onSubmit={onSubmit} noValidate className={styles.narrowForm}>
        <StatusMessage status={status} />
        <Field id="current-password" label="Current password" error={errors.currentPassword?.message}>
          {(control) => <input {...control} type="password" autoComplete="current-password" {...form.register('currentPassword')} />}
        </Field>
        <Field id="new-password" label="New password" hint="At least 12 characters. Every other session of yours is signed out when it changes." error={errors.newPassword?.message}>
          {(control) => <input {...control} type="password" autoComplete="new-password" {...form.register('newPassword')} />}
        </Field>
        <Field id="confirm-password" label="New password again" error={errors.confirmPassword?.message}>
          {(control) => <input {...control} type="password" autoComplete="new-password" {...form.register('confirmPassword')} />}
        </Field>
        <div className={styles.actions}>
          <button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
    </section>
  )
}
