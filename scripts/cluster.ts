/**
 * `npm run cluster`: the production topology on one machine, from Debian's packages — a
 * PostgreSQL primary and a streaming replica (pg_basebackup, own port and data directory),
 * Redis, three app instances (`npm run build`'s dist/start.mjs), HAProxy in front of them
 * (health-checked on /readyz) and Varnish in front of the public content API
 * (deploy/content.vcl). `npm run cluster -- stop` stops it all; `-- status` lists it.
 * docs/deploy.md describes the same topology on real machines.
 *
 * Ports from CLUSTER_PORT_BASE (default 3800): HAProxy +0, Varnish +1, apps +11…+13,
 * PostgreSQL primary +32, replica +33, Redis +79. State (data, logs, pids) in
 * CLUSTER_DIR (default /tmp/newsroom-cluster-<base>), owned by the postgres user when run as root.
 */
import { startObjectStore, stopObjectStore } from './object-store.ts'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync, openSync, chownSync } from 'node:fs'
import { createConnection } from 'node:net'
import path from 'node:path'
import { clusterLayout, type ClusterLayout } from './cluster-layout.ts'

const root = path.resolve(import.meta.dirname, '..')
const layout = clusterLayout()

function run(command: string, args: string[], options: { asPostgres?: boolean; quiet?: boolean } = {}): string {
  const [cmd, argv] = options.asPostgres && process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'inherit'] })
}

function has(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Debian's packages, installed when missing (as root; otherwise says what to install). */
function ensurePackages(): void {
  const wanted: [string, string][] = [['haproxy', 'haproxy'], ['varnishd', 'varnish'], ['redis-server', 'redis-server']]
  const missing = wanted.filter(([binary]) => !has(binary) && !existsSync(`/usr/sbin/${binary}`)).map(([, pkg]) => pkg)
  if (!pgBin()) missing.push('postgresql')
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) throw new Error(`Install these Debian packages first: sudo apt-get install -y ${missing.join(' ')}`)
  console.log(`Installing ${missing.join(', ')} (apt-get)…`)
  execFileSync('apt-get', ['update'], { stdio: 'inherit' })
  execFileSync('apt-get', ['install', '-y', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
}

function pgBin(): string | null {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : []
  const found = versions.map((version) => `/usr/lib/postgresql/${version}/bin`).find((dir) => existsSync(`${dir}/initdb`))
  return found ?? null
}

const pg = (tool: string) => `${pgBin()}/${tool}`
const log = (name: string) => path.join(layout.dir, `${name}.log`)

function startPostgres(): void {
  const primary = path.join(layout.dir, 'pg-primary')
  const replica = path.join(layout.dir, 'pg-replica')
  if (!existsSync(path.join(primary, 'PG_VERSION'))) {
    run(pg('initdb'), ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], { asPostgres: true, quiet: true })
    appendFileSync(primary + '/postgresql.conf', [`port = ${layout.ports.primary}`, "listen_addresses = '127.0.0.1'", 'wal_level = replica', 'max_wal_senders = 5', 'hot_standby = on', `unix_socket_directories = '${layout.dir}'`, ''].join('\n'))
    appendFileSync(primary + '/pg_hba.conf', 'host replication postgres 127.0.0.1/32 trust\n')
  }
  run(pg('pg_ctl'), ['-D', primary, '-l', log('pg-primary'), '-w', 'start'], { asPostgres: true, quiet: true })
  const databases = run(pg('psql'), ['-h', '127.0.0.1', '-p', String(layout.ports.primary), '-U', 'postgres', '-Atc', 'SELECT datname FROM pg_database'], { quiet: true })
  if (!databases.split('\n').includes('newsroom')) run(pg('createdb'), ['-h', '127.0.0.1', '-p', String(layout.ports.primary), '-U', 'postgres', 'newsroom'], { quiet: true })
  if (!existsSync(path.join(replica, 'PG_VERSION'))) {
    // The replica starts as a copy of the primary and follows its WAL stream from there.
    run(pg('pg_basebackup'), ['-h', '127.0.0.1', '-p', String(layout.ports.primary), '-U', 'postgres', '-D', replica, '-R', '-X', 'stream'], { asPostgres: true, quiet: true })
    appendFileSync(replica + '/postgresql.conf', `port = ${layout.ports.replica}\n`)
  }
  run(pg('pg_ctl'), ['-D', replica, '-l', log('pg-replica'), '-w', 'start'], { asPostgres: true, quiet: true })
}

function startRedis(): void {
  run('redis-server', ['--port', String(layout.ports.redis), '--bind', '127.0.0.1', '--daemonize', 'yes', '--pidfile', pidFile('redis'), '--logfile', log('redis'), '--dir', layout.dir, '--save', '', '--appendonly', 'yes'], { quiet: true })
}

const pidFile = (name: string) => path.join(layout.dir, `${name}.pid`)

/** One production app instance, detached; its pid kept for `stop`. */
function startApp(index: number): void {
  const port = layout.ports.apps[index]!
  const out = openSync(log(`app-${index + 1}`), 'a')
  const child = spawn(process.execPath, ['--max-old-space-size=320', path.join(root, 'dist/start.mjs')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, ...layout.appEnv, PORT: String(port), INSTANCE_NAME: `app-${index + 1}` },
  })
  child.unref()
  writeFileSync(pidFile(`app-${index + 1}`), String(child.pid))
}

/**
 * Asks `check` every `everyMs` until it answers true; past `timeoutMs`, fails with `failure`
 * given what `check` last said (so the error names the state it was stuck in).
 */
async function pollUntil<Seen>(check: () => Promise<[boolean, Seen]>, failure: (last: Seen | undefined) => string, timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: Seen | undefined
  while (Date.now() < deadline) {
    const [done, seen] = await check()
    if (done) return
    last = seen
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new Error(`${failure(last)}; see the logs in ${layout.dir}`)
}

async function waitReady(url: string, timeoutMs = 120_000): Promise<void> {
  const ready = async (): Promise<[boolean, null]> => [await fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false), null]
  await pollUntil(ready, () => `${url} did not become ready`, timeoutMs, 300)
}

function startHaproxy(): void {
  const servers = layout.ports.apps.map((port, index) => `  server app-${index + 1} 127.0.0.1:${port} check inter 500ms fall 2 rise 2`).join('\n')
  const config = `global
  pidfile ${pidFile('haproxy')}
  maxconn 2000
  # Read by restartApp: an instance is back only once HAProxy's own checks have it UP.
  stats socket ${haproxySocket()} mode 600 level user

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # A request that could not reach an instance (it stopped) is tried on another one.
  retries 2
  option redispatch
  retry-on conn-failure empty-response response-timeout

frontend web
  bind 127.0.0.1:${layout.ports.haproxy}
  option forwardfor
  default_backend apps

backend apps
  balance roundrobin
  # An instance leaves the rotation when /readyz fails twice 500 ms apart (a stopping instance
  # answers 503 there while it drains), and comes back after two successes.
  option httpchk GET /readyz
  http-check expect status 200
  # Which instance answered: the cross-instance tests check that requests are spread.
  http-response set-header X-Served-By %s
${servers}
`
  writeFileSync(path.join(layout.dir, 'haproxy.cfg'), config)
  run('haproxy', ['-D', '-f', path.join(layout.dir, 'haproxy.cfg')], { quiet: true })
}

function startVarnish(): void {
  const vcl = readFileSync(path.join(root, 'deploy/content.vcl'), 'utf8').replaceAll('{{BACKEND_HOST}}', '127.0.0.1').replaceAll('{{BACKEND_PORT}}', String(layout.ports.haproxy))
  const vclFile = path.join(layout.dir, 'content.vcl')
  writeFileSync(vclFile, vcl)
  run('varnishd', ['-a', `127.0.0.1:${layout.ports.varnish}`, '-f', vclFile, '-n', path.join(layout.dir, 'varnish'), '-P', pidFile('varnish'), '-s', 'malloc,64m', '-T', 'none'], { quiet: true })
}

const haproxySocket = () => path.join(layout.dir, 'haproxy.sock')

/** One command on HAProxy's stats socket, and its answer. */
function haproxyCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(haproxySocket())
    let answer = ''
    socket.setEncoding('utf8')
    socket.setTimeout(2_000, () => socket.destroy(new Error(`HAProxy did not answer "${command}"`)))
    socket.on('connect', () => socket.end(`${command}\n`))
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

/** The status HAProxy's health checks give app instance `index` (UP, DOWN, "DOWN 1/2"…). */
async function haproxyServerStatus(index: number): Promise<string | undefined> {
  const [header, ...rows] = (await haproxyCommand('show stat')).trim().split('\n')
  const columns = header!.replace(/^# /, '').split(',')
  const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name))
  return rows.map((row) => row.split(',')).find((fields) => fields[proxy!] === 'apps' && fields[server!] === `app-${index + 1}`)?.[status!]
}

/**
 * Starts app instance `index` (0-based) again, after a test stopped it, and waits until it is
 * ready and HAProxy sends it traffic again: its checks need two successes 500 ms apart, and a
 * request sent through HAProxy before then may find every instance still out of rotation (503).
 */
export async function restartApp(index: number, timeoutMs = 120_000): Promise<void> {
  startApp(index)
  await waitReady(`http://127.0.0.1:${layout.ports.apps[index]}/readyz`, timeoutMs)
  await waitInRotation(index, timeoutMs)
}

async function waitInRotation(index: number, timeoutMs = 120_000): Promise<void> {
  const up = async (): Promise<[boolean, string | undefined]> => {
    const status = await haproxyServerStatus(index).catch((error: Error) => `unreadable (${error.message})`)
    return [status === 'UP', status]
  }
  await pollUntil(up, (status) => `HAProxy still has app-${index + 1} ${status ?? 'unlisted'}`, timeoutMs, 200)
}

/** Stops or starts the PostgreSQL replica (the tests' "replica down"). */
export function replicaServer(action: 'stop' | 'start'): void {
  const dir = path.join(layout.dir, 'pg-replica')
  const args = action === 'stop' ? ['-D', dir, '-m', 'fast', '-w', 'stop'] : ['-D', dir, '-l', log('pg-replica'), '-w', 'start']
  run(pg('pg_ctl'), args, { asPostgres: true, quiet: true })
}

function kill(name: string, signal: NodeJS.Signals = 'SIGTERM'): void {
  const file = pidFile(name)
  if (!existsSync(file)) return
  const pid = Number(readFileSync(file, 'utf8').trim())
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
  rmSync(file, { force: true })
}

export async function startCluster(): Promise<ClusterLayout> {
  ensurePackages()
  if (!existsSync(path.join(root, 'dist/start.mjs'))) {
    console.log('No production build yet: running `npm run build`…')
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  }
  mkdirSync(layout.dir, { recursive: true })
  if (process.getuid?.() === 0) chownSync(layout.dir, Number(run('id', ['-u', 'postgres'], { quiet: true })), Number(run('id', ['-g', 'postgres'], { quiet: true })))
  startPostgres()
  startRedis()
  // The media library's S3 store, shared by the three instances (scripts/object-store.ts).
  Object.assign(layout.appEnv, { ...(await startObjectStore({ stateDir: path.join(layout.dir, 'object-store'), basePort: layout.base + 85, objectStore: 'bluestore' })).env, MEDIA_S3_BUCKET: 'newsroom-media' })
  // The first instance migrates the database; the others start once it is ready.
  startApp(0)
  await waitReady(`http://127.0.0.1:${layout.ports.apps[0]}/readyz`)
  startApp(1)
  startApp(2)
  await Promise.all(layout.ports.apps.slice(1).map((port) => waitReady(`http://127.0.0.1:${port}/readyz`)))
  startHaproxy()
  startVarnish()
  await Promise.all(layout.ports.apps.map((_, index) => waitInRotation(index)))
  return layout
}

export async function stopCluster(): Promise<void> {
  kill('varnish')
  // HAProxy first, so no new request reaches an instance that is stopping.
  kill('haproxy', 'SIGUSR1')
  for (let i = 1; i <= layout.ports.apps.length; i++) kill(`app-${i}`)
  kill('redis')
  await stopObjectStore(path.join(layout.dir, 'object-store'))
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline && layout.ports.apps.some((port) => portOpen(port))) await new Promise((resolve) => setTimeout(resolve, 200))
  for (const data of ['pg-replica', 'pg-primary']) {
    const dir = path.join(layout.dir, data)
    if (existsSync(path.join(dir, 'postmaster.pid'))) run(pg('pg_ctl'), ['-D', dir, '-m', 'fast', '-w', 'stop'], { asPostgres: true, quiet: true })
  }
}

function portOpen(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function main() {
  const command = process.argv[2] ?? 'start'
  if (command === 'stop') {
    await stopCluster()
    console.log('Cluster stopped.')
    return
  }
  if (command === 'start') {
    const started = await startCluster()
    console.log(
      [
        `Cluster up (state, logs: ${started.dir}):`,
        `  HAProxy (portal, /v1)         http://127.0.0.1:${started.ports.haproxy}`,
        `  Varnish (/content/v1)         http://127.0.0.1:${started.ports.varnish}`,
        `  app instances                 ${started.ports.apps.map((port) => `:${port}`).join(' ')}`,
        `  PostgreSQL primary / replica  :${started.ports.primary} / :${started.ports.replica}`,
        `  Redis                         :${started.ports.redis}`,
        'Stop it with: npm run cluster -- stop',
      ].join('\n'),
    )
    return
  }
  throw new Error(`Unknown command ${command}: use start or stop.`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: Error) => {
    console.error(error.message)
    process.exit(1)
  })
}
