import { z } from 'zod'
import {
  eventKindSchema,
  maxWebhookSecretLength,
  minWebhookSecretLength,
  webhookEventsSchema,
  webhookSecretSchema,
  webhookStatusesSchema,
  webhookTagsSchema,
  webhookUrlSchema,
} from '@/lib/webhooks/webhook-schemas'

// Early feedback in the browser with the API's own rules; the server checks the same fields
// again (and more: it refuses private addresses) and its messages are shown beside the fields too.
// Only the commonest mistakes get the form's own words.

const url = z.string().trim().min(1, 'Enter the URL that should receive the events.').pipe(webhookUrlSchema)

const events = z.array(eventKindSchema).min(1, 'Choose at least one event.').pipe(webhookEventsSchema)

const secretMessage = `The secret needs ${minWebhookSecretLength} to ${maxWebhookSecretLength} characters. Use “Generate” for a strong one.`
const secretRule = (value: string) => webhookSecretSchema.safeParse(value).success

/** The tags field as typed ("election, Vote"), as the list the service takes. */
export function tagList(text: string): string[] {
  return text.split(',').map((tag) => tag.trim()).filter(Boolean)
}

const filters = {
  department_ids: z.array(z.string()),
  tags: z.string().refine((text) => webhookTagsSchema.safeParse(tagList(text)).success, 'Each tag needs 1 to 64 characters, and at most 50 tags.'),
  statuses: z.array(z.string()).refine((statuses) => webhookStatusesSchema.safeParse(statuses).success),
}

export const createWebhookFormSchema = z.object({ url, events, secret: z.string().refine(secretRule, secretMessage), ...filters })

export const editWebhookFormSchema = z.object({
  url,
  events,
  ...filters,
  // Empty keeps the current secret, which the service never shows.
  secret: z.string().refine((value) => value.length === 0 || secretRule(value), secretMessage),
})

export type WebhookFormValues = z.infer<typeof createWebhookFormSchema>
