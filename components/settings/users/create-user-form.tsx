'use client'

import { zodResolver } from '@/components/form-wording'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import type { z } from 'zod'
import { createUserSchema, minPasswordLength, roles } from '@/lib/users/user-schemas'
import { useTRPC } from '@/components/trpc-context'
import { OneTimeSecret } from '../one-time-secret'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { StatusMessage, type Status } from '../status-message'
import { Field } from '../field'
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
        <Field id="user-name" label="Name" error={errors.name?.message}>
          {(control) => <input {...control} autoComplete="off" {...form.register('name')} />}
        </Field>

        <Field id="user-email" label="E-mail" hint="They sign in with this address." error={errors.email?.message}>
          {(control) => <input {...control} type="email" autoComplete="off" {...form.register('email')} />}
        </Field>

        <Field id="user-role" label="Role" hint={`${roleHelp.admin} ${roleHelp.editor} ${roleHelp.writer}`} error={errors.role?.message}>
          {(control) => (
            <select {...control} {...form.register('role')}>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          )}
        </Field>

        <Field
          id="user-password"
          label="Initial password (optional)"
          hint={`At least ${minPasswordLength} characters. Leave it empty and a strong password is generated and shown to you once.`}
          error={errors.password?.message}
        >
          {(control) => <input {...control} type="password" autoComplete="new-password" {...form.register('password')} />}
        </Field>

        <div className={styles.actions}>
          <button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Adding…' : 'Add person'}
          </button>
        </div>
      </form>
    </section>
  )
}
