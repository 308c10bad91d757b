import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ensureLocalSecrets, missingProductionSecrets } from '../../lib/config/local-secrets.ts'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')

/** `npm start`'s entry (scripts/start.ts) as an operator runs it, with this environment. */
async function start(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !['NEXTAUTH_SECRET', 'WEBHOOK_SECRET_KEY', 'DATABASE_URL', 'NODE_ENV'].includes(name)))
  try {
    const { stdout, stderr } = await run(path.join(root, 'node_modules/.bin/tsx'), ['scripts/start.ts'], { cwd: root, env: { ...clean, ...env } as NodeJS.ProcessEnv, timeout: 60_000 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, output: failed.stdout + failed.stderr }
  }
}

describe('shared secrets in production', () => {
  it('npm start refuses to start with a DATABASE_URL and no shared secrets, naming both variables, and writes no secrets file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secrets-'))
    try {
      const file = path.join(dir, 'secrets.json')
      const { code, output } = await start({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere', LOCAL_SECRETS_FILE: file })
      expect(code).toBe(1)
      expect(output).toMatch(/Refusing to start: NEXTAUTH_SECRET and WEBHOOK_SECRET_KEY are not set/)
      expect(() => readFileSync(file)).toThrow()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('names only the one that is missing', () => {
    expect(missingProductionSecrets({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/newsroom', NEXTAUTH_SECRET: 'set' })).toMatch(/^Refusing to start: WEBHOOK_SECRET_KEY is not set/)
    expect(missingProductionSecrets({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/newsroom', NEXTAUTH_SECRET: 'a', WEBHOOK_SECRET_KEY: 'b' })).toBeNull()
  })

  it('the embedded default (no DATABASE_URL) still generates and keeps them', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secrets-'))
    try {
      const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', LOCAL_SECRETS_FILE: path.join(dir, 'secrets.json') }
      expect(missingProductionSecrets(env)).toBeNull()
      const saved = process.env.LOCAL_SECRETS_FILE
      process.env.LOCAL_SECRETS_FILE = env.LOCAL_SECRETS_FILE
      try {
        const first = ensureLocalSecrets(env)
        expect(first.NEXTAUTH_SECRET).toHaveLength(43)
        // A restart reads the same ones back.
        expect(ensureLocalSecrets({ NODE_ENV: 'production' })).toEqual(first)
      } finally {
        if (saved === undefined) delete process.env.LOCAL_SECRETS_FILE
        else process.env.LOCAL_SECRETS_FILE = saved
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
