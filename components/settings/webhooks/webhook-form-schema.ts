import { z } from 'zod'
import {
  eventKindSchema,
  maxWebhookSecretLength,
  minWebhookSecretLength,
  webhookEventsSchema,
  webhookSecretSchema,
  webhookUrlSchema,
} from '@/lib/webhooks/webhook-schemas'

// Early feedback in the browser with the API's own rules; the server checks the same fields
// again (and more: it refuses private addresses) and its messages are shown beside the fields too.
// Only the commonest mistakes get the form's own words.

const url = z.string().trim().min(1, 'Enter the URL that should receive the events.').pipe(webhookUrlSchema)

const events = z.array(eventKindSchema).min(1, 'Choose at least one event.').pipe(webhookEventsSchema)

const secretMessage = `The secret needs ${minWebhookSecretLength} to ${maxWebhookSecretLength} characters. Use “Generate” for a strong one.`
const secretRule = (value: string) => webhookSecretSchema.safeParse(value).success

export const createWebhookFormSchema = z.object({ url, events, secret: z.string().refine(secretRule, secretMessage) })

export const editWebhookFormSchema = z.object({
  url,
  events,
  // Empty keeps the current secret, which the service never shows.
  secret: z.string().refine((value) => value.length === 0 || secretRule(value), secretMessage),
})

export type WebhookFormValues = z.infer<typeof createWebhookFormSchema>
