import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// Defects a tester found in the hand-written access log (issue 50's review): each failed before
// the fix (its lines now go through the loggers' one synchronous destination, logger.ts).
const run = promisify(execFile)
const accessLogModule = JSON.stringify(new URL('./access-log.ts', import.meta.url).pathname)

describe('the access log, as an operator runs it', () => {
  // pino folds LOG_LEVEL's case (WARN, Error mean warn, error: no info lines); the access log
  // looks the name up as given in pino.levels.values, finds nothing, and falls back to info.
  // (LOG_LEVEL=silent holds: pino.levels.values.silent is Infinity, not enumerable.)
  it.each(['WARN', 'Error'])('writes nothing with LOG_LEVEL=%s, as pino does not', async (level) => {
    const script = `const { accessLog } = await import(${accessLogModule}); const { pino } = await import('pino'); console.log(JSON.stringify([accessLog.enabled(), pino({ level: process.env.LOG_LEVEL }).isLevelEnabled('info')]))`
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: level } })
    const [accessLogWrites, pinoWrites] = JSON.parse(stdout.trim().split('\n').pop()!) as [boolean, boolean]
    expect(pinoWrites).toBe(false)
    expect(accessLogWrites).toBe(pinoWrites)
  })

  // What lifecycle.ts does after draining on SIGTERM: process.exit(0). The exit handler writes the
  // last batch, but a 16 KB batch already handed to an asynchronous fs.write (threadpool) is
  // neither waited for nor rewritten by flushSync, so when the log collector reads a moment late
  // (a full pipe), that batch is lost or cut mid-line (broken JSON), and the rest arrives before it.
  it('loses no line, and cuts none, when the process exits while its reader is slow', async () => {
    const script = `
      console.log(JSON.stringify({ msg: 'x'.repeat(60000) }))
      const { accessLog, accessLogLine } = await import(${accessLogModule})
      for (let i = 0; i < 150; i++) accessLog.append(accessLogLine({ requestId: 'req_' + i, method: 'GET', route: '/v1/articles/{id}', status: 200, durationMs: 1 }, 1700000000000))
      process.exit(0)
    `
    const { stdout } = await run('sh', ['-c', `"$NODE" --import tsx --input-type=module -e "$SCRIPT" | (sleep 1; cat)`], { env: { ...process.env, NODE: process.execPath, SCRIPT: script, NODE_ENV: 'production', LOG_LEVEL: 'info' }, maxBuffer: 16 * 1024 * 1024 })
    const lines = stdout.split('\n').filter(Boolean)
    const broken = lines.filter((line) => {
      try {
        JSON.parse(line)
        return false
      } catch {
        return true
      }
    })
    const ids = lines.filter((line) => line.includes('"request_id"') && !broken.includes(line)).map((line) => (JSON.parse(line) as { request_id: string }).request_id)
    expect({ broken: broken.length, lines: ids.length }).toEqual({ broken: 0, lines: 150 })
    expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => `req_${i}`))
  })

  // Two writers on one descriptor: the access log's 16 KB batches go out from libuv's threadpool
  // (an asynchronous SonicBoom) while every other line is written synchronously by the main
  // thread (lib/ops/logger.ts). A write above PIPE_BUF (4 KB) to a pipe is not atomic, so when the
  // collector reads late another line lands inside an access line: two lines of broken JSON.
  // (The old 4 KB-minimum buffered request logger did this too; bigger batches make it likelier.)
  it('never writes another log line into the middle of an access line', async () => {
    const loggerModule = JSON.stringify(new URL('./logger.ts', import.meta.url).pathname)
    const script = `
      const { accessLog, accessLogLine } = await import(${accessLogModule})
      const { logger } = await import(${loggerModule})
      let i = 0
      for (let round = 0; round < 40; round++) {
        for (let k = 0; k < 120; k++, i++) accessLog.append(accessLogLine({ requestId: 'req_' + i, method: 'GET', route: '/v1/articles/{id}', status: 200, durationMs: 1 }, 1700000000000))
        for (let k = 0; k < 20; k++) logger.warn({ round, k }, 'another line')
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    `
    const { stdout } = await run('sh', ['-c', `"$NODE" --import tsx --input-type=module -e "$SCRIPT" | (sleep 1.5; cat)`], { env: { ...process.env, NODE: process.execPath, SCRIPT: script, NODE_ENV: 'production', LOG_LEVEL: 'info' }, maxBuffer: 16 * 1024 * 1024 })
    const broken = stdout.split('\n').filter(Boolean).filter((line) => {
      try {
        JSON.parse(line)
        return false
      } catch {
        return true
      }
    })
    expect(broken).toEqual([])
  })
})
