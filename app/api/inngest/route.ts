import { serve } from 'inngest/next'
import { inngest } from '@/inngest/client'
import { functions } from '@/inngest/functions/index'
// The functions' own sends (the outbox sweeper) go through the outbox's queue.
import '@/inngest/outbox-queue'

// Inngest calls this endpoint to run the functions (POST), to sync them (PUT) and to inspect
// the app (GET). Signatures are checked with INNGEST_SIGNING_KEY outside dev mode.
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export const { GET, POST, PUT } = serve({ client: inngest, functions })
