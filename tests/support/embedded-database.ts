import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startEmbeddedDatabase } from '../../lib/db/embedded-server.ts'
import { serverRecordName } from '../../lib/db/embedded-config.ts'
import { runPrisma } from '../../scripts/run-prisma.ts'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * The embedded database exactly as `npm run dev` starts it (PGlite behind its socket server,
 * migrated by `prisma migrate deploy`), on a fresh directory and a free port of its own.
 *
 * Migrating PGlite takes ~11 s (Prisma's schema engine in WebAssembly, every migration in
 * PostgreSQL compiled to WebAssembly), and a dozen test files each wanted one: within a test
 * run (NEWSROOM_TEST_RUN) the first to ask migrates a directory once, and every file starts
 * its own copy of it.
 */
export async function startMigratedEmbeddedDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'newsroom-pglite-'))
  const template = await migratedTemplate()
  if (template) cpSync(template, dataDir, { recursive: true, filter: (source) => path.basename(source) !== serverRecordName })
  const embedded = await startEmbeddedDatabase({ dataDir, port: await freePort() })
  if (!template) {
    try {
      await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: embedded.url })
    } catch (error) {
      await embedded.stop()
      throw error
    }
  }
  return {
    url: embedded.url,
    stop: async () => {
      await embedded.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** This run's migrated embedded directory (removed by global-setup.ts's teardown), or null outside a named run. */
export const embeddedTemplateDir = (): string | null => (process.env.NEWSROOM_TEST_RUN ? path.join(tmpdir(), `newsroom-pglite-template-${process.env.NEWSROOM_TEST_RUN}`) : null)

/** Whether the process that took the lock is still running (a lock made before its pid was written counts as held). */
function lockHolderAlive(lock: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'))
  } catch {
    return existsSync(lock)
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The run's migrated directory, built by whichever worker asks first: it holds the lock (a
 * directory made atomically, with its pid inside), migrates a directory of its own and renames
 * it into place, so the others, waiting, never see half of one. The others wait on that
 * condition, not on a clock: a migration on a loaded machine takes what it takes, and only a
 * holder that died (a killed run) makes a waiter take the lock over.
 */
async function migratedTemplate(): Promise<string | null> {
  const template = embeddedTemplateDir()
  if (!template) return null
  const lock = `${template}.lock`
  for (; !existsSync(template); await sleep(250)) {
    try {
      mkdirSync(lock)
    } catch {
      if (!lockHolderAlive(lock)) rmSync(lock, { recursive: true, force: true })
      continue
    }
    writeFileSync(path.join(lock, 'pid'), String(process.pid))
    try {
      const building = mkdtempSync(`${template}-building-`)
      const embedded = await startEmbeddedDatabase({ dataDir: building, port: await freePort() })
      try {
        await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: embedded.url })
      } finally {
        await embedded.stop()
      }
      renameSync(building, template)
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
  return template
}
