/**
 * One CPU profile of the bare node:http server (bench/ceiling-server.ts) answering the bytes the
 * service gave for one cached `GET /v1/articles/{id}`, driven as the bench drives it: to set
 * beside `PROFILE_PATH=cached bench/profile-cold-list.ts` (what the service spends that the
 * machine's ceiling does not).
 *
 *   PROFILE_DIR=/tmp/ceiling PROFILE_DATABASE=<bench copy> PROFILE_PORT=4620 npx tsx bench/profile-ceiling.ts
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { load, waitFor } from './load.ts'
import { cpuPerRequest, cpuSnapshot } from './process-cpu.ts'
import { startCommand } from '../scripts/start-command.ts'
import { captureAnswer } from './ceiling-server.ts'

const dir = process.env.PROFILE_DIR ?? '/tmp/ceiling-profile'
const database = process.env.PROFILE_DATABASE ?? 'newsroom_bench_run'
const port = Number(process.env.PROFILE_PORT ?? 4620)
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`
process.env.DATABASE_URL = databaseUrl
const { benchTenantsOf } = await import('./seed-bench-data.ts')
const [big] = await benchTenantsOf(databaseUrl, ['large'])

// The service, only to capture its answer.
const [shell, args] = startCommand(process.cwd())
const service = spawn(shell, args, {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, NODE_ENV: 'production', SEED: 'false', PORT: String(port + 1), LOCAL_SECRETS_FILE: '.data/bench-secrets.json', REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn' },
})
process.on('exit', () => service.kill('SIGTERM'))
await waitFor(`http://127.0.0.1:${port + 1}/v1/openapi.json`)
const list = await (await fetch(`http://127.0.0.1:${port + 1}/v1/articles?limit=1`, { headers: { authorization: `Bearer ${big!.token}` } })).json()
const answerFile = path.join(mkdtempSync(path.join(tmpdir(), 'ceiling-')), 'answer.json')
await captureAnswer(`http://127.0.0.1:${port + 1}/v1/articles/${list.items[0].article_id}`, big!.token, answerFile)
service.kill('SIGTERM')

const spawnedAt = performance.now()
const ceiling = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', 'bench/ceiling-server.ts', String(port), answerFile], { stdio: ['ignore', 'ignore', 'inherit'] })
process.on('exit', () => ceiling.kill('SIGTERM'))
await new Promise((resolve) => setTimeout(resolve, 3000))
await load({ url: `http://127.0.0.1:${port}`, method: 'GET', path: '/v1/articles/x', token: big!.token, connections: 32, duration: 3 })
await new Promise((resolve) => setTimeout(resolve, 3000))
const before = cpuSnapshot(ceiling.pid!)
const started = performance.now()
const answered = (await load({ url: `http://127.0.0.1:${port}`, method: 'GET', path: '/v1/articles/x', token: big!.token, connections: 32, duration: Number(process.env.PROFILE_SECONDS ?? 12) })).requests
const cpu = cpuPerRequest(before, cpuSnapshot(ceiling.pid!), answered)
console.log(JSON.stringify({ target: 'ceiling', fromSeconds: Number(((started - spawnedAt) / 1000).toFixed(1)), requests: answered, rps: Number((answered / ((performance.now() - started) / 1000)).toFixed(1)), serverUs: cpu.server }))
await new Promise<void>((resolve) => {
  ceiling.once('exit', () => resolve())
  ceiling.kill('SIGTERM')
})
