import type pg from 'pg'
import type { SpawnedApiServer } from './spawn-api-server.ts'

/**
 * An instance killed between a change's commit and its answer: `send` goes to a new instance
 * (`spawn`) while Redis is stopped (SIGSTOP), and that instance is SIGKILLed once the change it
 * makes under the Idempotency-Key `key` has committed (the key's record says so), before it has
 * answered. The span between a commit and its answer is short by design (once a command to Redis
 * has timed out the instance stops waiting on Redis, lib/redis.ts), so the kill can come after
 * the answer: then the whole attempt is made again, with what `prepare` makes anew, up to `tries`
 * times. Returns what `prepare` made for the attempt whose instance died unanswered.
 */
export async function killedBetweenCommitAndAnswer<T>(options: {
  redisPid: number
  monitor: pg.Client
  spawn: () => Promise<SpawnedApiServer>
  prepare: () => Promise<T>
  send: (server: SpawnedApiServer, prepared: T, key: string) => Promise<unknown>
  tries?: number
}): Promise<{ prepared: T; key: string }> {
  const tries = options.tries ?? 8
  for (let attempt = 1; attempt <= tries; attempt++) {
    const server = await options.spawn()
    const prepared = await options.prepare()
    const key = `killed-after-commit-${Date.now()}-${attempt}`
    process.kill(options.redisPid, 'SIGSTOP')
    let outcome: Promise<string>
    try {
      outcome = options.send(server, prepared, key).then(
        () => 'answered',
        () => 'connection lost',
      )
      let committed = false
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && !committed; ) {
        const { rows } = await options.monitor.query('SELECT 1 FROM idempotency_records WHERE key = $1 AND committed_at IS NOT NULL', [key])
        committed = rows.length > 0
      }
      server.child.kill('SIGKILL')
      if (!committed) throw new Error(`the change under ${key} never committed`)
    } finally {
      process.kill(options.redisPid, 'SIGCONT')
    }
    if ((await outcome) === 'connection lost') return { prepared, key }
  }
  throw new Error(`in ${tries} tries the instance always answered before it was killed`)
}
