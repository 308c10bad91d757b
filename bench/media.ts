/**
 * The media library's rows (issue 47): `BENCH_MEDIA=1 npm run bench` (or `tsx bench/media.ts`).
 *
 * - upload of a 5 MB JPEG (multipart POST /v1/media, one at a time): p50, p99, CPU per request;
 * - a cold rendition (first request of a signed URL: read the original, resize to 1,280 px with
 *   sharp, encode JPEG, store, answer) against sharp alone doing the same resize of the same
 *   file in this one process, one at a time: the ceiling; the ratio is sharp's time / ours;
 * - a cached rendition (the stored bytes through the response path), 8 connections;
 * - peak RSS of a fresh server taking 16 concurrent 20 MB uploads (VmHWM, the kernel's own
 *   high-water mark, plus 100 ms samples of the process tree), against the 400 MB budget: on
 *   the production build (`npm start`'s command, dist/start.mjs, on BENCH_MEDIA_PORT, default
 *   3190) when `npm run build` has made one, else on the route server (said in the report).
 *   BENCH_MEDIA_ONLY=rss runs this row alone.
 *
 * The server is the /v1 and /content/v1 route server (tests/support/api-server-process.ts, the
 * production server's own listener, lib/server) on a new PostgreSQL database of its own, with
 * the disk media store under a temporary directory. Prints a Markdown report; with
 * BENCH_MEDIA_OUT=<file> also writes it there.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import sharp from 'sharp'
import { spawn, type ChildProcess } from 'node:child_process'
import { runPrisma } from '../scripts/run-prisma.ts'
import { startCommand } from '../scripts/start-command.ts'
import { spawnApiServer, type SpawnedApiServer } from '../tests/support/spawn-api-server.ts'
import { cpuPerRequest, cpuSnapshot, measurePostgresOf } from './process-cpu.ts'

const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres'
const run = randomBytes(4).toString('hex')
const databaseName = `newsroom_media_bench_${run}`
const databaseUrl = Object.assign(new URL(server), { pathname: `/${databaseName}` }).toString()
const mediaDir = mkdtempSync(path.join(tmpdir(), 'newsroom-media-bench-'))
const uploads = Number(process.env.BENCH_MEDIA_UPLOADS ?? 30)
const renditions = Number(process.env.BENCH_MEDIA_RENDITIONS ?? 20)
const cachedSeconds = Number(process.env.BENCH_MEDIA_CACHED_SECONDS ?? 10)
const onlyRss = process.env.BENCH_MEDIA_ONLY === 'rss'
const root = path.resolve(import.meta.dirname, '..')
const builtServer = existsSync(path.join(root, 'dist/start.mjs')) && process.env.BENCH_MEDIA_RSS_SERVER !== 'tsx'
const builtPort = Number(process.env.BENCH_MEDIA_PORT ?? 3190)

const log = (message: string) => console.error(`[media bench ${new Date().toISOString().slice(11, 19)}] ${message}`)

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  await client.query(sql).finally(() => client.end())
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`

/** A photograph-like JPEG of about `targetBytes`: smooth gradients under noise, so it compresses as a camera's files do. */
async function jpegOfAbout(targetBytes: number, width: number, height: number): Promise<Buffer> {
  const noise = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).raw().toBuffer()
  let quality = 90
  for (;;) {
    const bytes = await sharp(noise, { raw: { width, height, channels: 3 } }).blur(0.6).jpeg({ quality }).toBuffer()
    if (bytes.length >= targetBytes * 0.9 || quality >= 100) return bytes
    quality = Math.min(100, quality + 4)
  }
}

/** The same image with a comment segment naming `n` after SOI: other bytes (another record), the same pixels and cost. */
function variant(jpeg: Buffer, n: number): Buffer {
  const text = Buffer.from(`bench ${run} ${n}`)
  const segment = Buffer.alloc(4 + text.length)
  segment.writeUInt16BE(0xfffe, 0)
  segment.writeUInt16BE(2 + text.length, 2)
  text.copy(segment, 4)
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)])
}

async function upload(api: { url: string; tenant?: { token: string } }, bytes: Buffer, name: string): Promise<{ status: number; ms: number; body: UploadedRecord }> {
  const form = new FormData()
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), name)
  form.set('alt_text', 'Bench image')
  const started = performance.now()
  let response: Response
  try {
    response = await fetch(`${api.url}/v1/media`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${api.tenant!.token}` } })
  } catch (error) {
    // The server answered (a 503 past its queue) and closed before taking the whole body: the client sees the broken pipe.
    return { status: 0, ms: performance.now() - started, body: { error: String((error as { cause?: { code?: string } }).cause?.code ?? error) } as unknown as UploadedRecord }
  }
  const text = await response.text()
  const elapsed = performance.now() - started
  return { status: response.status, ms: elapsed, body: text.startsWith('{') ? JSON.parse(text) : { error: text } }
}

type UploadedRecord = { width: number; height: number; urls: { renditions: { width: number; crop: string | null; url: string }[] } }
const rendition1280 = (record: UploadedRecord): string => record.urls.renditions.find((r) => r.width === 1280 && r.crop === null)!.url

function vmHwmMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}
/** The process's resident memory now (MB): in all, and its anonymous (heaps: V8's, malloc's) and file-backed (code, mapped libraries) parts. */
function rssParts(pid: number): { total: number; anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024
    return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') }
  } catch {
    return { total: 0, anon: 0, file: 0 }
  }
}

/**
 * The production server as `npm start` runs it (its heap limit included), on the bench's
 * database; `token` is one the route server made there. Resolves once /readyz answers 200.
 */
async function startBuiltServer(databaseUrl: string, token: string): Promise<{ url: string; tenant: { token: string }; pid: number; stop: () => Promise<void> }> {
  const [command, args] = startCommand()
  const secret = () => randomBytes(32).toString('base64url')
  let output = ''
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...serverEnv, NODE_ENV: 'production', DATABASE_URL: databaseUrl, PORT: String(builtPort), HOST: '127.0.0.1', NEXTAUTH_SECRET: secret(), WEBHOOK_SECRET_KEY: secret(), NEXTAUTH_URL: `http://127.0.0.1:${builtPort}`, LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false' },
  })
  for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${builtPort}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The built server exited (${child.exitCode}):\n${output}`)
    const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => 0)
    if (status === 200) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`The built server was not ready within 120 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  return {
    url,
    tenant: { token },
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(killer)
    },
  }
}

const serverEnv = {
  MEDIA_DIR: mediaDir,
  MEDIA_S3_ENDPOINT: '',
  MEDIA_S3_BUCKET: '',
  RATE_LIMIT_STANDARD_PER_MINUTE: '100000000',
  RATE_LIMIT_ENTERPRISE_PER_MINUTE: '100000000',
  API_SERVER_PROCESS_MAX_MS: '1800000',
}

async function main() {
  log(`database ${databaseName}`)
  // PostgreSQL's share is that of this database's backends only: the machine is shared.
  measurePostgresOf(databaseName)
  await admin(`CREATE DATABASE ${databaseName}`)
  const report: string[] = []
  let api: SpawnedApiServer | undefined
  let rss: { url: string; tenant?: { token: string }; pid: number; stop: () => Promise<void> } | undefined
  try {
    await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: databaseUrl })
    api = await spawnApiServer(databaseUrl, { tenant: true, env: serverEnv, timeoutMs: 120_000 })
    const pid = api.child.pid!
    const token = api.tenant!.token
    const five = await jpegOfAbout(5 * 1024 * 1024, 2600, 1800)
    if (!onlyRss) {
      // --- Upload of a 5 MB JPEG, one at a time.
      log(`upload: ${uploads} × ${(five.length / 1048576).toFixed(2)} MB (${(await sharp(five).metadata()).width} × ${(await sharp(five).metadata()).height})`)
      await upload(api, variant(five, -1), 'warm.jpg')
      const uploadTimes: number[] = []
      const records: UploadedRecord[] = []
      let before = cpuSnapshot(pid)
      for (let i = 0; i < uploads; i++) {
        const answer = await upload(api, variant(five, i), `bench-${i}.jpg`)
        if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`)
        uploadTimes.push(answer.ms)
        records.push(answer.body)
      }
      const uploadCpu = cpuPerRequest(before, cpuSnapshot(pid), uploads)

      // --- Cold renditions (each URL's first request) against sharp alone on the same file.
      const original = path.join(mediaDir, 'bench-original.jpg')
      writeFileSync(original, variant(five, 0))
      const size = { width: records[0]!.width, height: records[0]!.height }
      // What renderImage (lib/media/render-rendition.ts) does for a 1,280 px JPEG without a crop.
      const sharpAlone = () => sharp(original, { sequentialRead: true, autoOrient: true }).resize({ width: 1280, withoutEnlargement: true }).jpeg({ quality: 80, mozjpeg: true }).toBuffer()
      await sharpAlone()
      const sharpTimes: number[] = []
      const sharpCpuStart = process.cpuUsage()
      for (let i = 0; i < renditions; i++) {
        const started = performance.now()
        await sharpAlone()
        sharpTimes.push(performance.now() - started)
      }
      const sharpCpu = process.cpuUsage(sharpCpuStart)
      const sharpCpuUs = Math.round((sharpCpu.user + sharpCpu.system) / renditions)
      log(`cold renditions: ${renditions}`)
      const coldTimes: number[] = []
      before = cpuSnapshot(pid)
      for (let i = 0; i < renditions; i++) {
        const record = records[i % records.length]!
        const started = performance.now()
        const response = await fetch(`${api.url}${rendition1280(record)}`, { headers: { Accept: 'image/jpeg' } })
        const body = Buffer.from(await response.arrayBuffer())
        coldTimes.push(performance.now() - started)
        if (response.status !== 200 || body.length === 0) throw new Error(`rendition answered ${response.status}`)
      }
      const coldCpu = cpuPerRequest(before, cpuSnapshot(pid), renditions)

      // --- A cached rendition through the response path, 8 connections.
      const cachedUrl = `${api.url}${rendition1280(records[0]!)}`
      log(`cached rendition: ${cachedSeconds} s, 8 connections`)
      const cachedTimes: number[] = []
      let cachedErrors = 0
      before = cpuSnapshot(pid)
      const until = performance.now() + cachedSeconds * 1000
      const started = performance.now()
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() < until) {
            const t = performance.now()
            const response = await fetch(cachedUrl, { headers: { Accept: 'image/jpeg' } })
            await response.arrayBuffer()
            if (response.status !== 200) cachedErrors++
            cachedTimes.push(performance.now() - t)
          }
        }),
      )
      const cachedElapsed = (performance.now() - started) / 1000
      const cachedCpu = cpuPerRequest(before, cpuSnapshot(pid), cachedTimes.length)
      const sharpP50 = quantile(sharpTimes, 0.5)
      const coldP50 = quantile(coldTimes, 0.5)
      report.push(
        '| Row | Requests | p50 | p99 | Server CPU / request | PostgreSQL CPU / request | Notes |',
        '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
        `| Upload, 5 MB JPEG (${(five.length / 1048576).toFixed(2)} MB, ${size.width} × ${size.height}), one at a time | ${uploads} | ${ms(quantile(uploadTimes, 0.5))} | ${ms(quantile(uploadTimes, 0.99))} | ${(uploadCpu.server / 1000).toFixed(1)} ms | ${(uploadCpu.postgres / 1000).toFixed(1)} ms | multipart, streamed to a temp file, decoded once, stored, record + event committed |`,
        `| Cold rendition, 1,280 px JPEG, one at a time | ${renditions} | ${ms(coldP50)} | ${ms(quantile(coldTimes, 0.99))} | ${(coldCpu.server / 1000).toFixed(1)} ms | ${(coldCpu.postgres / 1000).toFixed(1)} ms | read original, resize, encode, store, answer |`,
        `| sharp alone, same resize of the same file, in one process | ${renditions} | ${ms(sharpP50)} | ${ms(quantile(sharpTimes, 0.99))} | ${(sharpCpuUs / 1000).toFixed(1)} ms | – | the ceiling |`,
        `| Cached rendition through the response path, 8 connections | ${cachedTimes.length} (${(cachedTimes.length / cachedElapsed).toFixed(0)} req/s, ${cachedErrors} errors) | ${ms(quantile(cachedTimes, 0.5))} | ${ms(quantile(cachedTimes, 0.99))} | ${(cachedCpu.server / 1000).toFixed(2)} ms | ${(cachedCpu.postgres / 1000).toFixed(2)} ms | stored bytes, signature and rights checked per request |`,
        '',
        `**Cold rendition against sharp alone: ${(sharpP50 / coldP50).toFixed(2)}×** (sharp's p50 / the service's p50; target ≥ 0.7×); ` +
          `in CPU per rendition ${(sharpCpuUs / coldCpu.server).toFixed(2)}× (sharp's ${(sharpCpuUs / 1000).toFixed(0)} ms / the server's ${(coldCpu.server / 1000).toFixed(0)} ms), the figure a loaded machine disturbs least.`,
        '',
      )
    }
    await api.stop()

    // --- Peak RSS: a fresh server, 16 concurrent 20 MB uploads.
    const twenty = await jpegOfAbout(20 * 1024 * 1024, 5200, 3600)
    log(`peak RSS: 16 concurrent uploads of ${(twenty.length / 1048576).toFixed(1)} MB`)
    if (builtServer) {
      rss = await startBuiltServer(databaseUrl, token)
    } else {
      const routeServer = await spawnApiServer(databaseUrl, { tenant: true, env: serverEnv, timeoutMs: 120_000 })
      api = routeServer
      rss = { url: routeServer.url, tenant: routeServer.tenant, pid: routeServer.child.pid!, stop: routeServer.stop }
    }
    const fresh = rss.pid
    const warm = await upload(rss, variant(five, -2), 'warm.jpg')
    if (warm.status !== 201) throw new Error(`warm-up upload answered ${warm.status}: ${JSON.stringify(warm.body).slice(0, 300)}`)
    const idle = rssParts(fresh)
    const idleMb = idle.total
    let sampledPeak = idleMb
    let peakParts = idle
    const sampler = setInterval(() => {
      const now = rssParts(fresh)
      if (now.total > sampledPeak) [sampledPeak, peakParts] = [now.total, now]
    }, 100)
    const bodies = Array.from({ length: 16 }, (_, i) => variant(twenty, 1000 + i))
    const concurrentStarted = performance.now()
    const answers = await Promise.all(bodies.map((bytes, i) => upload(rss!, bytes, `big-${i}.jpg`)))
    const concurrentSeconds = (performance.now() - concurrentStarted) / 1000
    clearInterval(sampler)
    const hwm = vmHwmMb(fresh)
    await rss.stop()
    const statuses = answers.reduce<Record<number, number>>((counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {})

    report.unshift(
      `# Media library bench, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `Machine: ${(await import('node:os')).cpus().length} cores, Node ${process.version}, sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}). ` +
        'Server: the /v1 and /content/v1 route server (the listener of lib/server) on PostgreSQL 127.0.0.1, disk media store' +
        (builtServer ? '; the peak-RSS row on the production build (`npm start`: node --max-old-space-size=320 dist/start.mjs). ' : '; the peak-RSS row on the same route server (no production build: run `npm run build`). ') +
        'CPU per request is the server process\'s CPU time (user + system) over the row\'s requests; PostgreSQL\'s beside it.',
      '',
    )
    report.push(
      `**Peak RSS with 16 concurrent uploads of ${(twenty.length / 1048576).toFixed(1)} MB** (5,200 × 3,600, a fresh ${builtServer ? 'built server' : 'route server'}): VmHWM ${hwm.toFixed(0)} MB ` +
        `(sampled every 100 ms: ${sampledPeak.toFixed(0)} MB, of it ${peakParts.anon.toFixed(0)} MB anonymous and ${peakParts.file.toFixed(0)} MB file-backed; ` +
        `${idleMb.toFixed(0)} MB after one warm-up upload, ${idle.anon.toFixed(0)} MB anonymous); budget 400 MB. ` +
        (process.env.MALLOC_ARENA_MAX ? `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}. ` : '') +
        `All 16 in ${concurrentSeconds.toFixed(1)} s; answers: ${Object.entries(statuses).map(([status, count]) => `${count} × ${status === '0' ? 'connection closed by the server before the whole body was sent (answered 503 early)' : status}`).join(', ')}.`,
    )
    const text = report.join('\n')
    console.log(text)
    if (process.env.BENCH_MEDIA_OUT) writeFileSync(process.env.BENCH_MEDIA_OUT, text + '\n')
  } finally {
    await rss?.stop()
    await api?.stop()
    await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch(() => undefined)
    rmSync(mediaDir, { recursive: true, force: true })
  }
}

await main()
