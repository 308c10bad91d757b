'use client'

import { zodResolver } from '@/components/form-wording'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { Controller, useForm, useWatch } from 'react-hook-form'
import type { ApiStatus } from '@/lib/articles/article-status'
import type { EventKind } from '@/lib/events/event-kinds'
import { maxWebhookSecretLength, minWebhookSecretLength } from '@/lib/webhooks/webhook-schemas'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { StatusMessage, type Status } from '../status-message'
import { Field } from '../field'
import styles from '../settings.module.css'
import { EventKindPicker } from './event-kind-picker'
import { SecretField } from './secret-field'
import { createWebhookFormSchema, editWebhookFormSchema, tagList, type WebhookFormValues } from './webhook-form-schema'
import { WebhookFilterFields } from './webhook-filter-fields'

type Field = keyof WebhookFormValues

const formFields: readonly string[] = ['url', 'events', 'secret', 'department_ids', 'tags', 'statuses'] satisfies Field[]

// The service names nested fields "events.0"; the form shows them on the field itself.
function formField(field: string): Field | null {
  const root = field.split('.')[0]!
  return formFields.includes(root) ? (root as Field) : null
}

export type WebhookFormInitial = { url: string; events: EventKind[]; department_ids: string[]; tags: string[]; statuses: string[] }

export function WebhookForm(props: { mode: 'create' } | { mode: 'edit'; webhookId: string; initial: WebhookFormInitial }) {
  const trpc = useTRPC()
  const router = useRouter()
  const queryClient = useQueryClient()
  const [failure, setFailure] = useState<Status>(null)
  const form = useForm<WebhookFormValues>({
    resolver: zodResolver(props.mode === 'create' ? createWebhookFormSchema : editWebhookFormSchema),
    defaultValues:
      props.mode === 'create' ? { url: '', events: [], secret: '', department_ids: [], tags: '', statuses: [] } : { ...props.initial, tags: props.initial.tags.join(', '), secret: '' },
    shouldFocusError: true,
  })
  const create = useMutation(trpc.webhooks.create.mutationOptions())
  const update = useMutation(trpc.webhooks.update.mutationOptions())
  const { errors, isSubmitting } = form.formState
  const [departmentIds, statuses] = useWatch({ control: form.control, name: ['department_ids', 'statuses'] })

  // Registered before the fields below it: react-hook-form focuses the first invalid field in
  // the order fields were registered, and a Field's control registers only when the Field renders.
  const urlInput = form.register('url')
  const onSubmit = form.handleSubmit(async (input) => {
    setFailure(null)
    const values = { ...input, tags: tagList(input.tags), statuses: input.statuses as ApiStatus[] }
    try {
      if (props.mode === 'create') {
        const created = await create.mutateAsync(values)
        await queryClient.invalidateQueries(trpc.webhooks.list.queryFilter())
        router.push(`/settings/webhooks/${created.webhook_id}?created=1`)
      } else {
        const { secret, ...rest } = values
        await update.mutateAsync({ webhookId: props.webhookId, ...rest, ...(secret && { secret }) })
        await queryClient.invalidateQueries(trpc.webhooks.pathFilter())
        router.push(`/settings/webhooks?saved=${encodeURIComponent(props.webhookId)}`)
      }
    } catch (error) {
      if (!applyServerFieldErrors(form, error, formField)) setFailure({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  })

  return (
    <form method="post" onSubmit={onSubmit} noValidate>
      <StatusMessage status={failure} />
      <Field
        id="webhook-url"
        label="Receiver URL"
        hint="Events are POSTed here as JSON. It must be https and publicly reachable; redirects are not followed."
        error={errors.url?.message}
      >
        {(control) => <input {...control} type="url" inputMode="url" autoComplete="off" placeholder="https://hooks.example.com/newsroom" {...urlInput} />}
      </Field>

      <Controller
        control={form.control}
        name="events"
        render={({ field }) => (
          <EventKindPicker value={field.value} onChange={field.onChange} invalid={!!errors.events} describedBy={errors.events ? 'webhook-events-error' : undefined} firstRef={field.ref} />
        )}
      />
      {errors.events && <p id="webhook-events-error" className="field-error">{errors.events.message}</p>}

      <WebhookFilterFields
        departmentIds={departmentIds}
        statuses={statuses}
        onDepartmentIds={(value) => form.setValue('department_ids', value, { shouldDirty: true })}
        onStatuses={(value) => form.setValue('statuses', value, { shouldDirty: true })}
        tagsInput={form.register('tags')}
        errors={{ departmentIds: errors.department_ids?.message, tags: errors.tags?.message, statuses: errors.statuses?.message }}
      />

      <SecretField
        id="webhook-secret"
        label={props.mode === 'create' ? 'Signing secret' : 'New signing secret (optional)'}
        hint={
          props.mode === 'create'
            ? `Every delivery carries X-Service-Signature, the hex HMAC-SHA256 of the body keyed with this secret. Type one (${minWebhookSecretLength}–${maxWebhookSecretLength} characters) or generate one, and store it in your receiver: the service never shows it again.`
            : 'Leave empty to keep the current secret. A new one signs every delivery from now on, retries included, so update your receiver at the same time.'
        }
        error={errors.secret?.message}
        onGenerate={(secret) => form.setValue('secret', secret, { shouldValidate: true, shouldDirty: true })}
        getValue={() => form.getValues('secret')}
        inputProps={form.register('secret')}
      />

      <div className={styles.actions}>
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : props.mode === 'create' ? 'Create subscription' : 'Save changes'}
        </button>
        <Link href="/settings/webhooks">Cancel</Link>
      </div>
    </form>
  )
}
