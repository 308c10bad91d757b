import { processSingleton } from '../../process-singleton.ts'

/** What /readyz says about the data migrations this instance runs while it serves. */
export type BackfillReport = {
  name: string
  state: 'running' | 'done' | 'failed'
  scanned: number
  changed: number
  started_at: string
  finished_at: string | null
  error: string | null
}

type BackfillState = {
  /**
   * True from the moment this server process starts the body backfill until it has seen it
   * recorded as complete: until then a stored body may predate sanitise-on-write, so every
   * body is sanitised on its way out (toArticleRecord). False in processes that never start it
   * (the CLIs, the test servers' own processes), whose databases are prepared by db:migrate.
   */
  bodiesMayBeUnclean: boolean
  report: BackfillReport | null
  /** The run this process started, if it did. */
  running?: Promise<void>
}

// One per process: in `npm run dev` lib/ is loaded twice (process-singleton.ts), and the copy
// that renders a body must see the flag the copy running the backfill set.
export const backfillState = processSingleton<BackfillState>('data-migrations.backfill', () => ({ bodiesMayBeUnclean: false, report: null }))
