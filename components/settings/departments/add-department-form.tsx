'use client'

import { zodResolver } from '@/components/form-wording'
import { useMutation } from '@tanstack/react-query'
import { useForm } from 'react-hook-form'
import type { z } from 'zod'
import { addDepartmentSchema } from '@/lib/departments/department-schemas'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import type { Status } from '../status-message'
import styles from '../settings.module.css'

type Values = z.input<typeof addDepartmentSchema>

export function AddDepartmentForm({ onDone }: { onDone: (status: Status) => Promise<void> | void }) {
  const trpc = useTRPC()
  const form = useForm<Values>({ resolver: zodResolver(addDepartmentSchema), defaultValues: { name: '' }, shouldFocusError: true })
  const add = useMutation(trpc.departments.add.mutationOptions())
  const error = form.formState.errors.name

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const department = await add.mutateAsync(values)
      form.reset()
      await onDone({ kind: 'success', text: `Added the department “${department.name}”.` })
      form.setFocus('name')
    } catch (caught) {
      if (!applyServerFieldErrors(form, caught, ['name'])) await onDone({ kind: 'error', text: refusalMessage(caught) })
    }
  })

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby="add-department-heading" className={styles.spaced}>
      <h2 id="add-department-heading">Add a department</h2>
      <div className={styles.inlineForm}>
        <div>
          <label htmlFor="department-name">Department name</label>
          <input id="department-name" autoComplete="off" aria-invalid={!!error} aria-describedby={error ? 'department-name-error' : undefined} {...form.register('name')} />
        </div>
        <button type="submit" disabled={form.formState.isSubmitting}>
          {form.formState.isSubmitting ? 'Adding…' : 'Add department'}
        </button>
      </div>
      {error && (
        <p id="department-name-error" className="field-error">
          {error.message}
        </p>
      )}
    </form>
  )
}
