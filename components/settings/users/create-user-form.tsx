'use client'

import { zodResolver } from '@hookform/resolvers/zod'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import type { z } from 'zod'
import { createUserSchema, minPasswordLength, roles } from '@/lib/users/user-schemas'
import { useTRPC } from '@/components/trpc-provider'
import { OneTimeSecret } from '../one-time-secret'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

type UserValues = z.input<typeof createUserSchema>
const fields = ['email', 'name', 'role', 'password'] as const

const roleHelp = {
  admin: 'Admin: everything, including Settings.',
  editor: 'Editor: edits, approves and publishes articles.',
  writer: 'Writer: writes articles and sends them for review.',
}

export function CreateUserForm() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<Status>(null)
  const [password, setPassword] = useState<{ email: string; value: string } | null>(null)
  const form = useForm<UserValues>({
    resolver: zodResolver(createUserSchema),
    defaultValues: { email: '', name: '', role: 'writer', password: '' },
    shouldFocusError: true,
  })
  const create = useMutation(trpc.users.create.mutationOptions({ gcTime: 0 }))
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    setStatus(null)
    setPassword(null)
    try {
      const result = await create.mutateAsync({ ...values, role: values.role, password: values.password ?? '' })
      create.reset()
      form.reset()
      await queryClient.invalidateQueries(trpc.users.list.queryFilter())
      if (result.generatedPassword) {
        setPassword({ email: result.user.email, value: result.generatedPassword })
      } else {
        setStatus({ kind: 'success', text: `Added ${result.user.name} (${result.user.email}) as ${result.user.role}. Give them the password you chose.`, focus: true })
      }
    } catch (error) {
      if (!applyServerFieldErrors(form, error, fields)) setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  })

  const describe = (field: string, hint?: boolean) =>
    [errors[field as keyof UserValues] && `user-${field}-error`, hint && `user-${field}-hint`].filter(Boolean).join(' ') || undefined

  return (
    <section aria-labelledby="add-user-heading">
      <h2 id="add-user-heading">Add a person</h2>
      <StatusMessage status={status} />
      {password && (
        <OneTimeSecret title={`${password.email} can sign in now`} valueLabel="Their initial password" value={password.value} copyLabel="Copy password" testId="generated-password">
          <p>
            <strong>This password is shown only once.</strong> Pass it on privately (not by e-mail in the clear); it is stored only as a
            hash.
          </p>
        </OneTimeSecret>
      )}
      <form method="post" onSubmit={onSubmit} noValidate className={styles.fieldset}>
        <label htmlFor="user-name">Name</label>
        <input id="user-name" autoComplete="off" aria-invalid={!!errors.name} aria-describedby={describe('name')} {...form.register('name')} />
        {errors.name && <p id="user-name-error" className="field-error">{errors.name.message}</p>}

        <label htmlFor="user-email">E-mail</label>
        <input id="user-email" type="email" autoComplete="off" aria-invalid={!!errors.email} aria-describedby={describe('email', true)} {...form.register('email')} />
        <p id="user-email-hint" className={styles.hint}>They sign in with this address.</p>
        {errors.email && <p id="user-email-error" className="field-error">{errors.email.message}</p>}

        <label htmlFor="user-role">Role</label>
        <select id="user-role" aria-invalid={!!errors.role} aria-describedby={describe('role', true)} {...form.register('role')}>
          {roles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        <p id="user-role-hint" className={styles.hint}>
          {roleHelp.admin} {roleHelp.editor} {roleHelp.writer}
        </p>
        {errors.role && <p id="user-role-error" className="field-error">{errors.role.message}</p>}

        <label htmlFor="user-password">Initial password (optional)</label>
        <input
          id="user-password"
          type="password"
          autoComplete="new-password"
          aria-invalid={!!errors.password}
          aria-describedby={describe('password', true)}
          {...form.register('password')}
        />
        <p id="user-password-hint" className={styles.hint}>
          At least {minPasswordLength} characters. Leave it empty and a strong password is generated and shown to you once.
        </p>
        {errors.password && <p id="user-password-error" className="field-error">{errors.password.message}</p>}

        <div className={styles.actions}>
          <button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Adding…' : 'Add person'}
          </button>
        </div>
      </form>
    </section>
  )
}
