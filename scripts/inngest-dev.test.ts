import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// Each case loads a fresh copy of the module, whose "say it once" memory is per process.
const originalPath = process.env.PATH ?? ''
let log: ReturnType<typeof vi.spyOn>

beforeEach(() => {
  vi.resetModules()
  for (const name of ['INNGEST_DEV_SERVER', 'INNGEST_DEV', 'INNGEST_EVENT_KEY', 'INNGEST_BASE_URL']) vi.stubEnv(name, undefined)
  log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
})
afterEach(() => {
  vi.unstubAllEnvs()
  log.mockRestore()
})

async function load() {
  return (await import('./inngest-dev.ts')).startInngestDevServer
}

describe('startInngestDevServer', () => {
  it('starts nothing and says once that deliveries wait in the outbox when inngest-cli cannot run', async () => {
    vi.stubEnv('PATH', mkdtempSync(path.join(tmpdir(), 'empty-path-')))
    const start = await load()
    expect(await start('http://localhost:3000')).toBeUndefined()
    expect(await start('http://localhost:3000')).toBeUndefined()
    expect(log).toHaveBeenCalledTimes(1)
    expect(String(log.mock.calls[0]![0])).toMatch(/Inngest dev server not available \(inngest-cli is not installed\): webhook deliveries and scheduled publications wait in the outbox/)
    expect(process.env.INNGEST_DEV).toBeUndefined()
  })

  it('tries npx where inngest-cli is not installed, and explains once when that fails', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'fake-npx-'))
    writeFileSync(path.join(bin, 'npx'), '#!/bin/sh\necho "npm error could not download inngest" >&2\nexit 1\n', { mode: 0o755 })
    vi.stubEnv('PATH', bin)
    const start = await load()
    expect(await start('http://localhost:3000')).toBeDefined()
    await vi.waitFor(() => expect(log.mock.calls.some((call: unknown[]) => /Inngest dev server not available \(inngest-cli exited with code 1/.test(String(call[0])))).toBe(true))
    expect(log.mock.calls.filter((call: unknown[]) => String(call[0]).includes('not available'))).toHaveLength(1)
  })

  it('respects INNGEST_DEV_SERVER=0 and an Inngest configured elsewhere', async () => {
    vi.stubEnv('INNGEST_DEV_SERVER', '0')
    const start = await load()
    expect(await start('http://localhost:3000')).toBeUndefined()
    expect(String(log.mock.calls[0]![0])).toContain('INNGEST_DEV_SERVER=0')

    vi.resetModules()
    vi.stubEnv('INNGEST_DEV_SERVER', undefined)
    vi.stubEnv('INNGEST_EVENT_KEY', 'cloud-key')
    log.mockClear()
    expect(await (await load())('http://localhost:3000')).toBeUndefined()
    expect(log).not.toHaveBeenCalled()
  })

  it('runs an inngest-cli found on PATH as `dev -u <app>/api/inngest`, sets INNGEST_DEV, and stops it', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'fake-inngest-cli-'))
    const record = path.join(bin, 'args.txt')
    writeFileSync(path.join(bin, 'inngest-cli'), `#!/bin/sh\necho "$@" > "${record}"\nexec sleep 30\n`)
    chmodSync(path.join(bin, 'inngest-cli'), 0o755)
    vi.stubEnv('PATH', `${bin}${path.delimiter}${originalPath}`)
    const start = await load()
    const devServer = await start('http://localhost:3000/')
    expect(devServer).toBeDefined()
    expect(process.env.INNGEST_DEV).toBe('1')
    await vi.waitFor(() => expect(readFileSync(record, 'utf8').trim()).toBe('dev -u http://localhost:3000/api/inngest'), { timeout: 5_000 })
    devServer!.stop()
  })
})
