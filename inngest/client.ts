import { Inngest } from 'inngest'

// One client for the whole app. Like the SDK documents, it reads its settings from the
// environment: INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY for Inngest Cloud (or a
// self-hosted server, with INNGEST_BASE_URL), INNGEST_DEV=1 (or the dev server's URL) for
// the local dev server. Nothing set means cloud mode without keys: events wait in the outbox.

const requestTimeoutMs = 10_000

/** A stalled Inngest must not hold an API request (or a step) forever. */
const fetchWithTimeout: typeof fetch = (input, init) => {
  const timeout = AbortSignal.timeout(requestTimeoutMs)
  return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout })
}

export const inngest = new Inngest({ id: 'newsroom', fetch: fetchWithTimeout })

/**
 * Whether events can be sent now: in dev mode (the dev server takes any key), or in cloud
 * mode with an event key. The environment is read again each time, so a key or dev server
 * configured after start-up is picked up.
 */
export function queueConfigured(): boolean {
  // setEnvVars re-reads the whole environment (2% of a write's CPU when called per hand-off):
  // only when one of the settings it acts on has changed since the last call.
  const settings = inngestSettings.map((name) => process.env[name] ?? '').join('\n')
  if (settings !== appliedSettings) {
    inngest.setEnvVars(process.env)
    appliedSettings = settings
  }
  return inngest.mode === 'dev' || inngest.eventKey !== undefined
}

const inngestSettings = ['INNGEST_DEV', 'INNGEST_EVENT_KEY', 'INNGEST_SIGNING_KEY', 'INNGEST_BASE_URL', 'INNGEST_EVENT_API_BASE_URL', 'INNGEST_API_BASE_URL', 'INNGEST_ENV']
let appliedSettings: string | undefined
