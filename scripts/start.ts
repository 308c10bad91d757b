/**
 * `npm start`: the production server, as `npm run build` compiled it (dist/start.mjs, with
 * Next's build in .next). With no DATABASE_URL it runs the embedded PGlite database (data in
 * .data/pglite). The seed runs in a child process, so this process loads lib/ once: in Next's
 * build, whose compiled /v1 route modules the app server calls directly. The data migrations
 * run there too, in the background once it serves (instrumentation.ts), not before it listens.
 */
import './record-native-date.ts'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { drainOfferedWork } from '../lib/server/lifecycle.ts'
import { bootDatabase, exitOnFailure, stopGracefully } from './boot.ts'
import { heapSettingsRefusal } from './heap-settings.ts'

const port = process.env.PORT ?? '3000'
// The address to listen on: HOST=127.0.0.1 keeps an instance behind a proxy on the same host
// unreachable from outside; unset, it listens on every interface (a container's default).
const host = process.env.HOST || undefined

async function main() {
  const refusal = heapSettingsRefusal(process.env)
  if (refusal) throw new Error(refusal)
  const startedAt = performance.now()
  const { embedded, seed } = await bootDatabase('start', port)
  await runChild(path.resolve('dist/prepare-database.mjs'), { ...process.env, SEED: String(seed) })
  console.log(`Database ready in ${Math.round(performance.now() - startedAt)} ms; starting the production server on port ${port}.`)

  const { startAppServer } = await import('../lib/server/app-server.ts')
  const server = await startAppServer({ port: Number(port), hostname: host, dev: false })
  console.log(`Ready on http://${host ?? 'localhost'}:${port} (production${host ? `, listening on ${host} only` : ', listening on every interface'}).`)
  stopGracefully(server, drainOfferedWork, () => embedded?.stop())
}

function runChild(script: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: 'inherit', env })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(script)} exited with ${code}`))))
  })
}

main().catch(exitOnFailure)
