import { z } from 'zod'
import { eventKinds, type EventKind } from '@/lib/events/event-kinds'

// Early feedback in the browser; the server checks the same fields again (and more: it
// refuses private addresses) and its messages are shown beside the fields too.

const url = z
  .string()
  .trim()
  .min(1, 'Enter the URL that should receive the events.')
  .max(2_048, 'A URL has at most 2,048 characters.')
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'Enter an absolute URL such as https://example.com/webhooks.')

const events = z.array(z.enum(eventKinds as [EventKind, ...EventKind[]])).min(1, 'Choose at least one event.')

const secretRule = (value: string) => value.length >= 16 && value.length <= 512
const secretMessage = 'The secret needs 16 to 512 characters. Use “Generate” for a strong one.'

export const createWebhookFormSchema = z.object({ url, events, secret: z.string().refine(secretRule, secretMessage) })

export const editWebhookFormSchema = z.object({
  url,
  events,
  // Empty keeps the current secret, which the service never shows.
  secret: z.string().refine((value) => value.length === 0 || secretRule(value), secretMessage),
})

export type WebhookFormValues = z.infer<typeof createWebhookFormSchema>
