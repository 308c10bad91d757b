/**
 * A real S3-compatible object store for tests and `npm run cluster`: Ceph's RADOS Gateway from
 * Debian's packages, in front of the smallest RADOS cluster that works (one monitor, one OSD on
 * memstore or bluestore), every file under one state directory and every daemon on ports the
 * caller gives. Facts behind the settings: shared/notes/s3-on-debian.md.
 *
 *   tsx scripts/object-store.ts start [stateDir] [basePort]   # prints the MEDIA_S3_* settings
 *   tsx scripts/object-store.ts stop  [stateDir]
 *
 * Ports: basePort is the monitor, basePort+1 the gateway, basePort+2..+19 the daemons' messengers.
 * Auth `none`: loopback only; production points MEDIA_S3_ENDPOINT at a real S3 service.
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, openSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export type ObjectStore = {
  endpoint: string
  accessKeyId: string
  secretAccessKey: string
  region: string
  stateDir: string
  /** The MEDIA_S3_* variables that point the app at this store. */
  env: Record<string, string>
  stop(): Promise<void>
}

export type ObjectStoreOptions = {
  stateDir: string
  basePort: number
  /** memstore (default: fast, data lost when stopped) or bluestore on a sparse file (kept across restarts). */
  objectStore?: 'memstore' | 'bluestore'
  accessKeyId?: string
  secretAccessKey?: string
}

const packages = ['radosgw', 'ceph-mon', 'ceph-osd']
const binaries = ['radosgw', 'ceph-mon', 'ceph-osd', 'monmaptool', 'radosgw-admin', 'ceph']
const rgwPools = ['.rgw.root', 'default.rgw.control', 'default.rgw.meta', 'default.rgw.log', 'default.rgw.buckets.index', 'default.rgw.buckets.data', 'default.rgw.buckets.non-ec']

function has(binary: string): boolean {
  return ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((dir) => existsSync(path.join(dir, binary)))
}

/**
 * A clean machine (CI) has no Ceph: install Debian's packages, waiting for the dpkg lock another
 * install may hold (apt-get's own lock timeout), as scripts/cluster.ts does for HAProxy and Varnish.
 */
export function ensureCephPackages(): void {
  if (binaries.every(has)) return
  if (process.getuid?.() !== 0) throw new Error(`Ceph is not installed. Install it first: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const lock = ['-o', 'DPkg::Lock::Timeout=600']
  console.log(`Installing ${packages.join(', ')} (apt-get)…`)
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...lock, ...packages], { stdio: 'inherit', env })
  } catch {
    // An empty or old package list: refresh it once and try again.
    execFileSync('apt-get', [...lock, 'update'], { stdio: 'inherit', env })
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...lock, ...packages], { stdio: 'inherit', env })
  }
}

function config(options: Required<Omit<ObjectStoreOptions, 'accessKeyId' | 'secretAccessKey'>> & { fsid: string }): string {
  const dir = options.stateDir
  const mon = options.basePort
  return [
    '[global]',
    `fsid = ${options.fsid}`,
    `mon_host = v2:127.0.0.1:${mon}`,
    'mon_initial_members = a',
    'public_addr = 127.0.0.1',
    'cluster_addr = 127.0.0.1',
    `ms_bind_port_min = ${mon + 2}`,
    `ms_bind_port_max = ${mon + 19}`,
    'ms_bind_msgr1 = false',
    'auth_cluster_required = none',
    'auth_service_required = none',
    'auth_client_required = none',
    `run_dir = ${dir}/run`,
    `admin_socket = ${dir}/run/$name.asok`,
    `pid_file = ${dir}/run/$name.pid`,
    `log_file = ${dir}/log/$name.log`,
    `crash_dir = ${dir}/crash`,
    `mon_data = ${dir}/mon/$id`,
    `osd_data = ${dir}/osd/$id`,
    `keyring = ${dir}/keyring`,
    'osd_pool_default_size = 1',
    'osd_pool_default_min_size = 1',
    'mon_allow_pool_size_one = true',
    'osd_pool_default_pg_num = 8',
    'osd_pool_default_pgp_num = 8',
    'osd_pool_default_pg_autoscale_mode = off',
    'osd_crush_chooseleaf_type = 0',
    'paxos_propose_interval = 0.05',
    'mon_warn_on_pool_no_redundancy = false',
    `osd_objectstore = ${options.objectStore}`,
    ...(options.objectStore === 'bluestore'
      ? [`bluestore_block_path = ${dir}/osd-block-$id`, 'bluestore_block_create = true', 'bluestore_block_size = 4294967296']
      : ['memstore_device_bytes = 2147483648']),
    'osd_memory_target = 268435456',
    '',
    '[client.rgw.media]',
    'ms_mon_client_mode = crc secure',
    `rgw_frontends = beast endpoint=127.0.0.1:${options.basePort + 1}`,
    'rgw_gc_obj_min_wait = 60',
    'rgw_gc_processor_period = 60',
    'rgw_dns_name = 127.0.0.1',
    '',
  ].join('\n')
}

function pidOf(stateDir: string, name: string): number | null {
  const file = path.join(stateDir, 'run', `${name}.pid`)
  if (!existsSync(file)) return null
  const pid = Number(readFileSync(file, 'utf8').trim())
  return Number.isInteger(pid) && pid > 0 ? pid : null
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Starts (or resumes) the store; resolves once a bucket-less S3 request is answered. */
export async function startObjectStore(options: ObjectStoreOptions): Promise<ObjectStore> {
  ensureCephPackages()
  const stateDir = path.resolve(options.stateDir)
  const objectStore = options.objectStore ?? 'memstore'
  const accessKeyId = options.accessKeyId ?? 'newsroom-media'
  const secretAccessKey = options.secretAccessKey ?? 'newsroom-media-secret-key-for-loopback'
  const conf = path.join(stateDir, 'ceph.conf')
  // memstore keeps nothing across an OSD restart, so such a store always starts afresh.
  const fresh = objectStore === 'memstore' || !existsSync(conf)
  if (fresh) {
    await stopDaemons(stateDir)
    rmSync(stateDir, { recursive: true, force: true })
  }
  for (const sub of ['run', 'log', 'crash', 'mon/a', 'osd/0']) mkdirSync(path.join(stateDir, sub), { recursive: true })
  const ceph = (args: string[]) => run('ceph', ['-c', conf, '--connect-timeout', '30', ...args], { timeout: 60_000 })
  const daemon = (binary: string, args: string[]) => {
    const out = openSync(path.join(stateDir, 'log', `${binary}.out`), 'a')
    // Foreground (-f) children of their own group, so a stop can reach each by its pid file.
    const child = spawn(binary, ['-c', conf, '-f', ...args], { stdio: ['ignore', out, out], detached: true })
    child.unref()
    writeFileSync(path.join(stateDir, 'run', `${binary}.spawned.pid`), String(child.pid))
  }

  if (fresh) {
    const fsid = randomUUID()
    writeFileSync(conf, config({ stateDir, basePort: options.basePort, objectStore, fsid }))
    writeFileSync(path.join(stateDir, 'keyring'), '')
    await run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${options.basePort}]`, path.join(stateDir, 'monmap')])
    await run('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', path.join(stateDir, 'monmap')])
  }
  daemon('ceph-mon', ['-i', 'a'])
  await until(async () => (await ceph(['mon', 'stat'])).stdout.includes('quorum'), 'the Ceph monitor', 60_000)

  if (fresh) {
    const uuid = randomUUID()
    const id = (await ceph(['osd', 'new', uuid])).stdout.trim()
    if (id !== '0') throw new Error(`Expected OSD id 0, got ${id}`)
    await run('ceph-osd', ['-c', conf, '-i', '0', '--mkfs', '--osd-uuid', uuid], { timeout: 120_000 })
  }
  daemon('ceph-osd', ['-i', '0'])
  await until(async () => /1 up/.test((await ceph(['osd', 'stat'])).stdout), 'the Ceph OSD', 120_000)

  if (fresh) {
    // Created up front: otherwise the first bucket, PUT and multipart upload each wait while radosgw makes them.
    for (const pool of rgwPools) {
      await ceph(['osd', 'pool', 'create', pool, '8'])
      await ceph(['osd', 'pool', 'application', 'enable', pool, 'rgw'])
    }
  }
  daemon('radosgw', ['-n', 'client.rgw.media'])
  const endpoint = `http://127.0.0.1:${options.basePort + 1}`
  await until(async () => (await fetch(endpoint)).status < 500, 'the RADOS Gateway', 120_000)
  if (fresh) {
    await run('radosgw-admin', ['-c', conf, 'user', 'create', '--uid', 'newsroom', '--display-name', 'Newsroom media', '--access-key', accessKeyId, '--secret-key', secretAccessKey], { timeout: 60_000 })
  }

  const env = {
    MEDIA_S3_ENDPOINT: endpoint,
    MEDIA_S3_REGION: 'default',
    MEDIA_S3_ACCESS_KEY_ID: accessKeyId,
    MEDIA_S3_SECRET_ACCESS_KEY: secretAccessKey,
  }
  return { endpoint, accessKeyId, secretAccessKey, region: 'default', stateDir, env, stop: () => stopDaemons(stateDir) }
}

/**
 * Stops the store's daemons, each by the pid it was started with: the gateway first (it waits
 * 120 s on SIGTERM when the cluster is already gone), then the OSD, then the monitor.
 */
export async function stopObjectStore(stateDir: string): Promise<void> {
  await stopDaemons(path.resolve(stateDir))
}

async function stopDaemons(stateDir: string): Promise<void> {
  for (const name of ['radosgw', 'ceph-osd', 'ceph-mon']) {
    const pid = pidOf(stateDir, `${name}.spawned`)
    if (pid === null || !alive(pid)) continue
    process.kill(pid, 'SIGTERM')
    const deadline = Date.now() + 20_000
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    if (alive(pid)) process.kill(pid, 'SIGKILL')
  }
}

async function main() {
  const [command, dir = '.data/object-store', port = '6500'] = process.argv.slice(2)
  if (command === 'start') {
    const store = await startObjectStore({ stateDir: dir, basePort: Number(port), objectStore: 'bluestore' })
    for (const [key, value] of Object.entries(store.env)) console.log(`${key}=${value}`)
  } else if (command === 'stop') {
    await stopObjectStore(dir)
  } else {
    console.error('Usage: tsx scripts/object-store.ts start|stop [stateDir] [basePort]')
    process.exit(2)
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
