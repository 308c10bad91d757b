/**
 * Preloaded into a service by bench/promise-count.ts (`node --import`): counts the promises the
 * process creates (V8's promise hook), and writes the count to PROMISE_COUNT_FILE on SIGUSR2.
 * The hook itself turns on what promise hooks cost, so this measures a count, never time.
 */
import { writeFileSync } from 'node:fs'
import { promiseHooks } from 'node:v8'

let created = 0
promiseHooks.onInit(() => {
  created++
})
process.on('SIGUSR2', () => writeFileSync(process.env.PROMISE_COUNT_FILE, String(created)))
