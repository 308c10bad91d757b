import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startEmbeddedDatabase } from '../../lib/db/embedded-server.ts'
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
 */
export async function startMigratedEmbeddedDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'newsroom-pglite-'))
  const embedded = await startEmbeddedDatabase({ dataDir, port: await freePort() })
  try {
    await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: embedded.url })
  } catch (error) {
    await embedded.stop()
    throw error
  }
  return {
    url: embedded.url,
    stop: async () => {
      await embedded.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
