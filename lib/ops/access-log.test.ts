import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { accessLogLine } from './access-log.ts'

const run = promisify(execFile)

// A process that logs three requests the way the server does, then exits on its own: what the
// operator's log collector reads from its stdout.
async function linesOf(env: Record<string, string>, script: string): Promise<Record<string, unknown>[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, NODE_ENV: 'production', ...env } })
  return stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
}

const logThree = `
  const { accessLog, accessLogLine } = await import(${JSON.stringify(new URL('./access-log.ts', import.meta.url).pathname)})
  for (const status of [200, 404, 429]) accessLog.append(accessLogLine({ requestId: 'req_' + status, method: 'GET', route: '/v1/articles/{id}', status, durationMs: 1.25, tenantId: 'ten_a', tokenId: 'tok_b', problemCode: status === 200 ? undefined : 'x' }, 1700000000000))
  if (process.env.WAIT_MS) await new Promise((resolve) => setTimeout(resolve, Number(process.env.WAIT_MS)))
`

describe('the access log', () => {
  it('writes one JSON line per request, in the shape of the other log lines, before the process exits', async () => {
    const lines = await linesOf({}, logThree)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toEqual({ level: 30, time: 1700000000000, request_id: 'req_200', tenant_id: 'ten_a', token_id: 'tok_b', method: 'GET', route: '/v1/articles/{id}', status: 200, duration_ms: 1.3, msg: 'api request' })
    expect(lines[2]).toMatchObject({ status: 429, problem: 'x' })
  })

  it('flushes waiting lines on its timer while the process runs on (a SIGKILL then loses none), and names the instance', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', logThree], { env: { ...process.env, NODE_ENV: 'production', WAIT_MS: '60000', INSTANCE_NAME: 'app-2' } })
    let stdout = ''
    child.stdout.setEncoding('utf8')
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (text: string) => {
        stdout += text
        if (stdout.split('\n').length > 3) resolve()
      }),
    )
    child.kill('SIGKILL')
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => line.instance)).toEqual(['app-2', 'app-2', 'app-2'])
  })

  it('writes lines at LOG_LEVEL info or below, and none above it or when silent', async () => {
    const enabledAt = async (level: string) =>
      (await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const { accessLog } = await import(${JSON.stringify(new URL('./access-log.ts', import.meta.url).pathname)}); console.log(String(accessLog.enabled()))`], { env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: level } })).stdout.trim()
    expect(await Promise.all(['debug', 'info', 'warn', 'silent'].map(enabledAt))).toEqual(['true', 'true', 'false', 'false'])
  })

  it('escapes what came from outside, so a line stays one JSON object', () => {
    const line = accessLogLine({ requestId: 'req_1', method: 'GE"T\n', route: '/v1/x', status: 400, durationMs: 0 }, 1, '')
    expect(line.endsWith('}\n')).toBe(true)
    expect(line.slice(0, -1)).not.toContain('\n')
    expect(JSON.parse(line)).toMatchObject({ method: 'GE"T\n', status: 400 })
  })
})
