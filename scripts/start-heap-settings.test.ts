import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// break72: `npm start` as package.json says it, the server's entry run from its source (no build
// needed): what an operator sees when NEWSROOM_HEAP_MB or NEWSROOM_HEAP_GROWING_PERCENT is
// written wrong. The production secrets are left out on purpose, so a start that gets past the
// heap settings stops at once (on the secrets), never serving.
const root = path.resolve(import.meta.dirname, '..')
const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start

function npmStart(env: Record<string, string>) {
  const command = script.replace('dist/start.mjs', `--import tsx ${path.join(root, 'scripts/start.ts')}`)
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NEWSROOM_HEAP|NODE_OPTIONS|NEXTAUTH_SECRET|WEBHOOK_SECRET_KEY|DATABASE_URL)/.test(name)))
  const run = spawnSync('sh', ['-c', command], { cwd: root, env: { ...clean, DATABASE_URL: 'postgresql://127.0.0.1:1/break72_never', ...env } as unknown as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

describe('npm start with the heap settings an operator may get wrong', () => {
  it.each([
    ['NEWSROOM_HEAP_MB', '0'],
    ['NEWSROOM_HEAP_MB', '-1'],
    ['NEWSROOM_HEAP_GROWING_PERCENT', '-50'],
  ])('refuses %s=%s, naming the setting, instead of running without the limit asked for', (name, value) => {
    const started = npmStart({ [name]: value })
    expect(started.status).not.toBe(0)
    expect(started.output).toContain(name)
  })

  it('refuses a heap limit given in NODE_OPTIONS, which npm start would silently override with 320 MB', () => {
    const started = npmStart({ NODE_OPTIONS: '--max-old-space-size=2048' })
    expect(started.status).not.toBe(0)
    expect(started.output).toContain('NEWSROOM_HEAP_MB')
  })

  it('gets past the heap settings written as documented (then stops on the missing secrets)', () => {
    const started = npmStart({ NEWSROOM_HEAP_MB: '512', NEWSROOM_HEAP_GROWING_PERCENT: '60' })
    expect(started.status).not.toBe(0)
    expect(started.output).not.toContain('NEWSROOM_HEAP')
    expect(started.output).toMatch(/NEXTAUTH_SECRET|WEBHOOK_SECRET_KEY/)
  })
})
