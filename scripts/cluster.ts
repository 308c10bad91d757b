/**
 * `npm run cluster`: the production topology on one machine, from Debian's packages — etcd and
 * two PostgreSQL nodes run by Patroni (a leader and a synchronous replica; Patroni promotes the
 * replica when the leader dies), Redis with a replica and three Sentinels, three app instances
 * (`npm run build`'s dist/start.mjs), HAProxy in front of the instances (health-checked on
 * /readyz) and of PostgreSQL (writes to Patroni's leader, reads to its replicas, by Patroni's
 * REST checks), Varnish in front of the public content API and the media renditions
 * (deploy/content.vcl), and the media store the instances share: Ceph's RADOS Gateway over a
 * one-monitor, one-OSD RADOS cluster (scripts/object-store.ts; bluestore, so the files outlive a
 * stop as the database does).
 * `npm run cluster -- stop` stops it all; `-- status` lists it.
 * docs/deploy.md describes the same topology on real machines.
 *
 * Ports from CLUSTER_PORT_BASE (default 3800; all within base…base+99, see cluster-layout.ts).
 * State (data, logs, pids) in CLUSTER_DIR (default /tmp/newsroom-cluster-<base>), owned by the
 * postgres user when run as root.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import path from 'node:path'
import { archiveParameters, backupInfo, clusterBackupLayout, ensureFirstBackup, writeBackupConfig } from './backup.ts'
import { clusterLayout, databaseNodes, type ClusterLayout } from './cluster-layout.ts'
import { runMigrationStep } from './migration-step.ts'
import { ensureCephPackages, startObjectStore, stopObjectStore, type ObjectStore } from './object-store.ts'
import { startCommand } from './start-command.ts'

export { databaseNodes }

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
    return existsSync(`/usr/sbin/${binary}`)
  }
}

/**
 * Debian's packages, installed when missing (as root; otherwise says what to install). apt-get
 * waits up to 5 minutes for the dpkg lock another install holds, rather than failing at once.
 */
function ensurePackages(): void {
  const wanted: [string, string][] = [
    ['haproxy', 'haproxy'],
    ['varnishd', 'varnish'],
    ['redis-server', 'redis-server'],
    ['redis-sentinel', 'redis-sentinel'],
    ['patroni', 'patroni'],
    ['etcd', 'etcd-server'],
    ['etcdctl', 'etcd-client'],
  ]
  const missing = wanted.filter(([binary]) => !has(binary)).map(([, pkg]) => pkg)
  if (!pgBin()) missing.push('postgresql')
  if (missing.length === 0) return
  if (process.getuid?.() !== 0) throw new Error(`Install these Debian packages first: sudo apt-get install -y ${missing.join(' ')}`)
  console.log(`Installing ${missing.join(', ')} (apt-get)…`)
  const lockWait = ['-o', 'DPkg::Lock::Timeout=300']
  execFileSync('apt-get', [...lockWait, 'update'], { stdio: 'inherit' })
  execFileSync('apt-get', [...lockWait, 'install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  // Debian starts the packaged services on install; the cluster runs its own on its own ports.
  for (const service of ['etcd', 'patroni', 'redis-sentinel', 'haproxy', 'varnish']) {
    if (missing.some((pkg) => pkg.startsWith(service))) execFileSync('sh', ['-c', `systemctl disable --now ${service} 2>/dev/null || service ${service} stop 2>/dev/null || true`], { stdio: 'ignore' })
  }
}

function pgBin(): string | null {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : []
  const found = versions.map((version) => `/usr/lib/postgresql/${version}/bin`).find((dir) => existsSync(`${dir}/initdb`))
  return found ?? null
}

const pg = (tool: string) => `${pgBin()}/${tool}`
const log = (name: string) => path.join(layout.dir, `${name}.log`)
const objectStoreDir = () => path.join(layout.dir, 'object-store')
/** The object store's daemons keep their pids in its own state directory (scripts/object-store.ts). */
const objectStoreDaemons = ['ceph-mon', 'ceph-osd', 'radosgw']
const pidFile = (name: string) => (objectStoreDaemons.includes(name) ? path.join(objectStoreDir(), 'run', `${name}.spawned.pid`) : path.join(layout.dir, `${name}.pid`))

function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  return { uid: Number(run('id', ['-u', 'postgres'], { quiet: true })), gid: Number(run('id', ['-g', 'postgres'], { quiet: true })) }
}

/** A long-running process, detached, its output in <name>.log and its pid kept for `stop`. */
function startDetached(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; asPostgres?: boolean } = {}): number {
  const out = openSync(log(name), 'a')
  const ids = options.asPostgres ? postgresIds() : undefined
  const child = spawn(command, args, { cwd: layout.dir, detached: true, stdio: ['ignore', out, out], env: options.env ?? process.env, ...ids })
  child.unref()
  writeFileSync(pidFile(name), String(child.pid))
  return child.pid!
}

function readPid(name: string): number | undefined {
  const file = pidFile(name)
  if (!existsSync(file)) return undefined
  const pid = Number(readFileSync(file, 'utf8').trim())
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

function alive(pid: number | undefined): boolean {
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
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

const httpStatus = (url: string) => fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => 0)

async function waitReady(url: string, timeoutMs = 120_000): Promise<void> {
  await pollUntil(async () => [(await httpStatus(url)) === 200, null], () => `${url} did not become ready`, timeoutMs, 300)
}

// ---------------------------------------------------------------------------------- etcd, Patroni

/**
 * The cluster's pgBackRest (scripts/backup.ts): one stanza for the Patroni cluster, both nodes
 * listed (a backup finds the one leading), the repository in CLUSTER_DIR/pgbackrest. Every node
 * archives its WAL there while it leads (archive_mode on: a standby archives nothing).
 */
export const clusterBackups = () => clusterBackupLayout(layout.dir, databaseNodes.map((name, index) => ({ pgData: path.join(layout.dir, name), pgPort: layout.ports.postgres[index]! })))

/** The archiving parameters of one node: its own data directory in archive_command. */
function nodeArchiveParameters(name: string): Record<string, string> {
  const { archive_mode, archive_command, archive_timeout } = archiveParameters(clusterBackups(), path.join(layout.dir, name))
  return { archive_mode: archive_mode!, archive_command: archive_command!, archive_timeout: archive_timeout! }
}

function startEtcd(): void {
  const { etcdClient, etcdPeer } = layout.ports
  startDetached('etcd', 'etcd', [
    '--name', 'etcd1',
    '--data-dir', path.join(layout.dir, 'etcd'),
    '--listen-client-urls', `http://127.0.0.1:${etcdClient}`,
    '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`,
    '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster', `etcd1=http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster-state', 'new',
  ])
}

/**
 * Patroni's configuration for one node (JSON is YAML). Synchronous mode: a commit is
 * acknowledged once the synchronous replica has it, and Patroni promotes only that replica,
 * so a failover loses no acknowledged write. Leader TTL 10 s: a dead leader is replaced within
 * about 10–15 s. Replication slots keep WAL for a replica that is down; pg_rewind lets the old
 * leader rejoin as a replica.
 */
function patroniConfig(index: number): string {
  const name = databaseNodes[index]!
  const hba = ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust']
  const config = {
    scope: layout.scope,
    name,
    restapi: { listen: `127.0.0.1:${layout.ports.patroni[index]}`, connect_address: `127.0.0.1:${layout.ports.patroni[index]}` },
    etcd3: { hosts: [`127.0.0.1:${layout.ports.etcdClient}`] },
    bootstrap: {
      dcs: {
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 3,
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: { wal_level: 'replica', hot_standby: 'on', max_wal_senders: 10, max_replication_slots: 10, wal_log_hints: 'on', synchronous_commit: 'on', max_connections: 150 },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }],
      pg_hba: hba,
    },
    postgresql: {
      listen: `127.0.0.1:${layout.ports.postgres[index]}`,
      connect_address: `127.0.0.1:${layout.ports.postgres[index]}`,
      data_dir: path.join(layout.dir, name),
      bin_dir: pgBin(),
      pgpass: path.join(layout.dir, `pgpass-${name}`),
      authentication: { superuser: { username: 'postgres', password: 'postgres' }, replication: { username: 'replicator', password: 'replicator' }, rewind: { username: 'postgres', password: 'postgres' } },
      // WAL archived by pgBackRest (wal_level replica and the senders are the cluster's, above).
      parameters: { unix_socket_directories: layout.dir, ...nodeArchiveParameters(name) },
      // A replica's copy starts at once (`pg_basebackup -c fast`), not at the next checkpoint.
      basebackup: [{ checkpoint: 'fast' }],
      pg_hba: hba,
    },
  }
  const file = path.join(layout.dir, `patroni-${name}.yml`)
  writeFileSync(file, JSON.stringify(config, null, 2))
  const ids = postgresIds()
  if (ids) chownSync(file, ids.uid, ids.gid)
  return file
}

/** Starts Patroni for database node `index` (0-based); it starts, bootstraps or rejoins its PostgreSQL. */
export function startDatabaseNode(index: number): void {
  const name = databaseNodes[index]!
  startDetached(`patroni-${name}`, 'patroni', [patroniConfig(index)], { asPostgres: true, env: { NODE_ENV: 'production', PATH: process.env.PATH, HOME: layout.dir, LANG: 'C.UTF-8' } })
}

export type DatabaseMember = { name: string; role: string; state: string; lag?: number | string }

/** The Patroni cluster as its REST API reports it (from any node that answers). */
export async function databaseMembers(): Promise<DatabaseMember[]> {
  for (const port of layout.ports.patroni) {
    // The timeout covers the body too: a busy Patroni can send its headers and then stall, and
    // that rejection (of r.json()) must mean "ask the next node" as a refused connection does.
    const answer = await fetch(`http://127.0.0.1:${port}/cluster`, { signal: AbortSignal.timeout(1_500) })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
    if (answer) return (answer as { members: DatabaseMember[] }).members
  }
  return []
}

/** The name of the node Patroni has as leader now, if one is. */
export async function databaseLeader(): Promise<string | undefined> {
  return (await databaseMembers()).find((member) => member.role === 'leader' && member.state === 'running')?.name
}

/**
 * The leader's machine dies: its Patroni and its PostgreSQL are SIGKILLed (killing PostgreSQL
 * alone would only have Patroni restart it in place). Returns the node's name.
 */
export async function killDatabaseLeader(): Promise<string> {
  const leader = await databaseLeader()
  if (!leader) throw new Error('No PostgreSQL leader to kill')
  const postmaster = Number(readFileSync(path.join(layout.dir, leader, 'postmaster.pid'), 'utf8').split('\n')[0])
  for (const pid of [readPid(`patroni-${leader}`), postmaster]) {
    try {
      if (pid) process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  return leader
}

/** Waits until both nodes run, one leading and the other a streaming synchronous standby. */
export async function waitDatabaseHealthy(timeoutMs = 120_000): Promise<void> {
  const healthy = async (): Promise<[boolean, string]> => {
    const members = await databaseMembers()
    const seen = members.map((member) => `${member.name}:${member.role}/${member.state}`).join(' ')
    const leader = members.some((member) => member.role === 'leader' && member.state === 'running')
    const sync = members.some((member) => member.role === 'sync_standby' && (member.state === 'running' || member.state === 'streaming'))
    return [leader && sync, seen]
  }
  await pollUntil(healthy, (seen) => `PostgreSQL nodes not healthy (${seen || 'no Patroni answers'})`, timeoutMs, 500)
}

/**
 * Patroni's maintenance mode for the whole database cluster (`patronictl pause`/`resume`). While
 * it is off, Patroni resumes a replica's paused WAL replay within a loop (Patroni 3.0's
 * handle_parameter_change runs pg_wal_replay_resume() on PostgreSQL 14+ whenever replay is
 * paused), so a test that pauses replay must pause Patroni first. `patronictl --wait` gives up
 * silently after loop_wait + 1 s (2 s here), which a busy machine outlasts: this waits until
 * every node's REST API reports the new mode itself.
 */
export async function databaseMaintenance(action: 'pause' | 'resume'): Promise<void> {
  run('patronictl', ['-c', path.join(layout.dir, `patroni-${databaseNodes[0]}.yml`), action, '--wait', layout.scope], { asPostgres: true, quiet: true })
  const wanted = action === 'pause'
  const applied = async (): Promise<[boolean, string]> => {
    const modes = await Promise.all(
      layout.ports.patroni.map((port) =>
        fetch(`http://127.0.0.1:${port}/patroni`, { signal: AbortSignal.timeout(1_500) })
          .then((r) => r.json() as Promise<{ pause?: boolean }>)
          .then((body) => body.pause === true, () => undefined),
      ),
    )
    return [modes.every((paused) => paused === wanted), modes.map((paused, i) => `${databaseNodes[i]}:${paused === undefined ? 'no answer' : paused ? 'paused' : 'managed'}`).join(' ')]
  }
  await pollUntil(applied, (seen) => `Patroni did not ${action} on every node (${seen})`, 30_000, 200)
}

/**
 * Stops or starts the PostgreSQL replica (the tests' "replica down") as an operator stops and
 * starts its host's service: its Patroni is stopped (SIGTERM: Patroni shuts its PostgreSQL
 * down and leaves the cluster; the leader's Patroni then drops it from synchronous replication,
 * so commits go on), and started again (it starts PostgreSQL with the options it passes on the
 * command line, port and listen address among them, and rejoins as the synchronous standby).
 *
 * Not by `pg_ctl` behind a paused Patroni: Patroni 3.0 restarts a stopped replica even while
 * paused ("PAUSE: changing primary_conninfo and restarting"), so the replica came back a few
 * seconds later by itself and the manual start then found its postmaster.pid; and `pg_ctl start`
 * knows none of Patroni's command-line options (it would listen on 5432).
 */
export async function replicaServer(action: 'stop' | 'start'): Promise<void> {
  if (action === 'stop') {
    const replica = (await databaseMembers()).find((member) => member.role !== 'leader')
    if (!replica) throw new Error('No PostgreSQL replica in the cluster')
    await stopProcess(`patroni-${replica.name}`, 'SIGTERM', 30_000)
    const dir = path.join(layout.dir, replica.name)
    // Patroni leaves PostgreSQL running only when it could not stop it (it was killed meanwhile).
    if (existsSync(path.join(dir, 'postmaster.pid'))) run(pg('pg_ctl'), ['-D', dir, '-m', 'fast', '-w', 'stop'], { asPostgres: true, quiet: true })
    return
  }
  const stopped = databaseNodes.filter((name) => !alive(readPid(`patroni-${name}`)))
  if (stopped.length !== 1) throw new Error(`Expected one stopped PostgreSQL node to start, found ${stopped.length ? stopped.join(', ') : 'none'}`)
  startDatabaseNode(databaseNodes.indexOf(stopped[0]!))
  // Back once it streams as the synchronous standby and HAProxy sends reads to it again.
  await waitDatabaseHealthy()
  await waitInRotation(stopped[0]!, 60_000, 'postgres-replicas')
}

// ---------------------------------------------------------------------------------- Redis, Sentinel

const redisNodes = () => [
  { name: 'redis', port: layout.ports.redis, args: [] as string[] },
  { name: 'redis-replica', port: layout.ports.redisReplica, args: ['--replicaof', '127.0.0.1', String(layout.ports.redis)] },
]

/** Starts (or, with 'stop', stops) the Redis master and replica; the Sentinels stay. */
export async function redisServers(action: 'start' | 'stop'): Promise<void> {
  for (const node of redisNodes()) {
    if (action === 'stop') {
      await stopProcess(node.name, 'SIGTERM', 10_000)
      continue
    }
    run('redis-server', ['--port', String(node.port), '--bind', '127.0.0.1', '--daemonize', 'yes', '--pidfile', pidFile(node.name), '--logfile', log(node.name), '--dir', layout.dir, '--dbfilename', `${node.name}.rdb`, '--appendfilename', `${node.name}.aof`, '--save', '', '--appendonly', 'yes', ...node.args], { quiet: true })
  }
}

function startSentinels(): void {
  layout.ports.sentinels.forEach((port, index) => {
    const name = `sentinel-${index + 1}`
    const file = path.join(layout.dir, `${name}.conf`)
    // Sentinel rewrites its own file (the master it follows, the others it has met).
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'daemonize yes',
        `pidfile ${pidFile(name)}`,
        `logfile ${log(name)}`,
        `dir ${layout.dir}`,
        `sentinel monitor newsroom 127.0.0.1 ${layout.ports.redis} 2`,
        'sentinel down-after-milliseconds newsroom 2000',
        'sentinel failover-timeout newsroom 10000',
        'sentinel parallel-syncs newsroom 1',
        '',
      ].join('\n'),
    )
    run('redis-sentinel', [file], { quiet: true })
  })
}

// ---------------------------------------------------------------------------------- media store

/**
 * The RADOS Gateway on the layout's ports (+52 monitor, +53 gateway, +54…+71 the daemons), with
 * the layout's S3 user; resumed with its data when the cluster was stopped before (bluestore on
 * a sparse file in the state directory). Its RGW pools are created up front on the first start.
 */
function startMediaStore(): Promise<ObjectStore> {
  return startObjectStore({
    stateDir: objectStoreDir(),
    basePort: layout.ports.objectStore,
    objectStore: 'bluestore',
    accessKeyId: layout.appEnv.MEDIA_S3_ACCESS_KEY_ID,
    secretAccessKey: layout.appEnv.MEDIA_S3_SECRET_ACCESS_KEY,
  })
}

// ---------------------------------------------------------------------------------- app instances

function sharedSecrets(): Record<string, string> {
  const file = path.join(layout.dir, 'secrets.json')
  if (!existsSync(file)) {
    writeFileSync(file, JSON.stringify({ NEXTAUTH_SECRET: randomBytes(32).toString('base64url'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64url') }), { mode: 0o600 })
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>
}

/** One production app instance, detached; its pid kept for `stop`. */
function startApp(index: number): void {
  const name = `app-${index + 1}`
  const out = openSync(log(name), 'a')
  // As `npm start` runs it (its heap limit and malloc arenas), with this pid the server's own.
  const child = spawn(...startCommand(root), {
    cwd: root,
    detached: true,
    stdio: ['ignore', out, out],
    // The shared secrets come from the environment, as on separate hosts: production refuses to start without them.
    env: { ...process.env, ...layout.appEnv, ...sharedSecrets(), PORT: String(layout.ports.apps[index]), INSTANCE_NAME: name, MIGRATE_ON_START: 'false' },
  })
  child.unref()
  writeFileSync(pidFile(name), String(child.pid))
}

/**
 * Starts app instance `index` (0-based) again, after a test stopped it, and waits until it is
 * ready and HAProxy sends it traffic again: its checks need two successes 500 ms apart, and a
 * request sent through HAProxy before then may find every instance still out of rotation (503).
 */
export async function restartApp(index: number, timeoutMs = 120_000): Promise<void> {
  startApp(index)
  await waitReady(`http://127.0.0.1:${layout.ports.apps[index]}/readyz`, timeoutMs)
  await waitInRotation(`app-${index + 1}`, timeoutMs)
}

// ---------------------------------------------------------------------------------- HAProxy, Varnish

/**
 * Which failed requests HAProxy sends again to another instance: only those that never reached
 * one (the connection could not be made), or, for safe methods (GET, HEAD, OPTIONS), also those
 * an instance dropped without answering. A POST an instance read and then dropped may have been
 * carried out: it is never re-sent, the client gets 502 and retries with its Idempotency-Key.
 */
export const haproxyRetryPolicy = {
  /** For the defaults section. */
  defaults: ['  retries 2', '  option redispatch', '  retry-on conn-failure empty-response response-timeout'].join('\n'),
  /** For each HTTP backend of instances. */
  backend: '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS',
}

function haproxyConfig(): string {
  const { ports } = layout
  const apps = layout.ports.apps.map((port, index) => `  server app-${index + 1} 127.0.0.1:${port} check inter 500ms fall 2 rise 2`).join('\n')
  const databaseServers = databaseNodes.map((name, index) => `  server ${name} 127.0.0.1:${ports.postgres[index]} check port ${ports.patroni[index]}`).join('\n')
  return `global
  pidfile ${pidFile('haproxy')}
  maxconn 2000
  # Read by restartApp and the tests: an instance is back only once HAProxy's own checks have it UP.
  stats socket ${haproxySocket()} mode 600 level user
  log stdout format raw local0

defaults
  mode http
  log global
  timeout connect 2s
  timeout client 60s
  timeout server 60s
${haproxyRetryPolicy.defaults}

# The portal and /v1. One access log line per request (haproxy.log).
frontend web
  bind 127.0.0.1:${ports.haproxy}
  option httplog
  option forwardfor
  # The public content API is Varnish's (its cache, and its purges): not served uncached here.
  http-request redirect prefix http://127.0.0.1:${ports.varnish} code 308 if { path_beg /content/ }
  # Which instance answered, only for the cluster's own tests (they send the metrics token):
  # the public never learns the instances' names.
  http-request set-var(txn.trace) str(1) if { req.hdr(X-Cluster-Trace) -m str ${layout.appEnv.METRICS_TOKEN} }
  http-request del-header X-Cluster-Trace
  http-response set-header X-Served-By %s if { var(txn.trace) -m found }
  # Cache tags name newsrooms by id: for Varnish, never for the public.
  http-response del-header Surrogate-Key
  http-response del-header Cache-Tag
  default_backend apps

# Varnish's way in: it appends the client's address to X-Forwarded-For itself, so this
# frontend adds none (TRUSTED_PROXY_HOPS stays 1 for both paths). Reachable from Varnish only.
frontend content
  bind 127.0.0.1:${ports.haproxyContent}
  option httplog
  default_backend apps

backend apps
  balance roundrobin
${haproxyRetryPolicy.backend}
  # With every instance out of rotation (a database failover while no replica answers either),
  # HAProxy's own 503 says when to retry, as the instances' do.
  http-error status 503 content-type "application/problem+json" string "{\\"type\\":\\"about:blank\\",\\"code\\":\\"service_unavailable\\",\\"status\\":503,\\"detail\\":\\"No instance can answer right now; retry shortly.\\"}" hdr Retry-After 5
  # An instance leaves the rotation when /readyz fails twice 500 ms apart (a stopping instance
  # answers 503 there while it drains), and comes back after two successes.
  option httpchk GET /readyz
  http-check expect status 200
${apps}

# PostgreSQL: writes go to the node Patroni's REST API says leads (GET /primary answers 200 on
# the leader only); on a failover HAProxy cuts the old leader's sessions and the apps reconnect
# to the new one (lib/db/failover-retry.ts).
frontend postgres-writes
  mode tcp
  bind 127.0.0.1:${ports.databaseWrites}
  option tcplog
  timeout client 30m
  default_backend postgres-leader

# Reads to the replicas (GET /replica); with none running (a failover, a replica down), to the leader.
frontend postgres-reads
  mode tcp
  bind 127.0.0.1:${ports.databaseReads}
  option tcplog
  timeout client 30m
  use_backend postgres-replicas if { nbsrv(postgres-replicas) gt 0 }
  default_backend postgres-leader

backend postgres-leader
  mode tcp
  timeout server 30m
  option httpchk GET /primary
  http-check expect status 200
  # Patroni's REST API can take a second or two to answer on a busy host: a slow answer is not a failure.
  timeout check 3s
  default-server inter 1s fall 3 rise 1 on-marked-down shutdown-sessions
${databaseServers}

backend postgres-replicas
  mode tcp
  timeout server 30m
  option httpchk GET /replica
  http-check expect status 200
  # Patroni's REST API can take a second or two to answer on a busy host: a slow answer is not a failure.
  timeout check 3s
  default-server inter 1s fall 3 rise 1 on-marked-down shutdown-sessions
${databaseServers}
`
}

function startHaproxy(): void {
  writeFileSync(path.join(layout.dir, 'haproxy.cfg'), haproxyConfig())
  run('haproxy', ['-c', '-q', '-f', path.join(layout.dir, 'haproxy.cfg')], { quiet: true })
  // In the foreground (-db) so that its access log goes to haproxy.log; detached from this process.
  startDetached('haproxy', 'haproxy', ['-db', '-f', path.join(layout.dir, 'haproxy.cfg')])
}

function startVarnish(): void {
  const vcl = readFileSync(path.join(root, 'deploy/content.vcl'), 'utf8').replaceAll('{{BACKEND_HOST}}', '127.0.0.1').replaceAll('{{BACKEND_PORT}}', String(layout.ports.haproxyContent))
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

/** The status HAProxy's health checks give a server of a backend (UP, DOWN, "DOWN 1/2"…). */
export async function haproxyServerStatus(server: string, backend = 'apps'): Promise<string | undefined> {
  const [header, ...rows] = (await haproxyCommand('show stat')).trim().split('\n')
  const columns = header!.replace(/^# /, '').split(',')
  const [proxy, name, status] = ['pxname', 'svname', 'status'].map((column) => columns.indexOf(column))
  return rows.map((row) => row.split(',')).find((fields) => fields[proxy!] === backend && fields[name!] === server)?.[status!]
}

async function waitInRotation(server: string, timeoutMs = 120_000, backend = 'apps'): Promise<void> {
  const up = async (): Promise<[boolean, string | undefined]> => {
    const status = await haproxyServerStatus(server, backend).catch((error: Error) => `unreadable (${error.message})`)
    return [status === 'UP', status]
  }
  await pollUntil(up, (status) => `HAProxy still has ${server} ${status ?? 'unlisted'}`, timeoutMs, 200)
}

// ---------------------------------------------------------------------------------- start, stop, status

const clusterPidNames = () => ['etcd', ...databaseNodes.map((name) => `patroni-${name}`), 'haproxy', 'varnish', 'redis', 'redis-replica', ...layout.ports.sentinels.map((_, i) => `sentinel-${i + 1}`), ...objectStoreDaemons, ...layout.ports.apps.map((_, i) => `app-${i + 1}`)]

/** The cluster's processes still alive, by name. */
function liveProcesses(): string[] {
  return existsSync(layout.dir) ? clusterPidNames().filter((name) => alive(readPid(name))) : []
}

/**
 * Starts the whole cluster; with `apps: false`, everything but the instances, Varnish and the
 * media store (to try the database tier alone). The media store starts alongside the database
 * (its monitor, OSD and gateway take 10–20 s, mostly waiting), and the instances wait for it.
 */
export async function startCluster(options: { apps?: boolean } = {}): Promise<ClusterLayout> {
  const running = liveProcesses()
  if (running.length > 0 || portOpen(layout.ports.haproxy)) {
    throw new Error(
      `A cluster already runs on port base ${layout.base} (${running.length > 0 ? running.join(', ') : `port ${layout.ports.haproxy} is taken`}; state in ${layout.dir}). ` +
        'See it with `npm run cluster -- status`, stop it with `npm run cluster -- stop`, or start another with CLUSTER_PORT_BASE set to a free base.',
    )
  }
  ensurePackages()
  if (options.apps !== false) ensureCephPackages()
  if (options.apps !== false && !existsSync(path.join(root, 'dist/start.mjs'))) {
    console.log('No production build yet: running `npm run build`…')
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  }
  mkdirSync(layout.dir, { recursive: true })
  const ids = postgresIds()
  if (ids) chownSync(layout.dir, ids.uid, ids.gid)
  let mediaStore: Promise<ObjectStore> | undefined
  try {
    if (options.apps !== false) {
      mediaStore = startMediaStore()
      // Awaited below, before the instances; marked handled now so a failure while the database
      // starts is reported there, not as an unhandled rejection.
      mediaStore.catch(() => undefined)
    }
    // Before PostgreSQL starts: its archive_command reads this configuration.
    writeBackupConfig(clusterBackups(), ids)
    startEtcd()
    await waitReady(`http://127.0.0.1:${layout.ports.etcdClient}/health`, 30_000)
    // The first node bootstraps (initdb) and leads; the second copies it and follows synchronously.
    startDatabaseNode(0)
    await waitReady(`http://127.0.0.1:${layout.ports.patroni[0]}/primary`, 60_000)
    startDatabaseNode(1)
    startHaproxy()
    await redisServers('start')
    startSentinels()
    await waitDatabaseHealthy()
    await waitInRotation(databaseNodes[0], 30_000, 'postgres-leader')
    const psql = (sql: string) => run(pg('psql'), ['-h', '127.0.0.1', '-p', String(layout.ports.databaseWrites), '-U', 'postgres', '-Atc', sql], { quiet: true })
    if (!psql('SELECT datname FROM pg_database').split('\n').includes('newsroom')) psql('CREATE DATABASE newsroom')
    // The stanza, a check that WAL reaches the repository, and a first full backup (restarts keep the repository's).
    ensureFirstBackup(clusterBackups())
    if (options.apps === false) return layout
    // The release's migration step, once, before any instance starts (instances only check it ran).
    await runMigrationStep({ ...process.env, ...layout.appEnv })
    const waitedFrom = Date.now()
    await mediaStore
    console.log(`Media store (RADOS Gateway) ready; the instances waited ${((Date.now() - waitedFrom) / 1000).toFixed(1)} s for it after the database.`)
    startApp(0)
    await waitReady(`http://127.0.0.1:${layout.ports.apps[0]}/readyz`)
    startApp(1)
    startApp(2)
    await Promise.all(layout.ports.apps.slice(1).map((port) => waitReady(`http://127.0.0.1:${port}/readyz`)))
    startVarnish()
    await Promise.all(layout.ports.apps.map((_, index) => waitInRotation(`app-${index + 1}`)))
  } catch (error) {
    // Nothing half-started is left behind: a failed start cleans up after itself.
    console.error(`The cluster did not start: ${(error as Error).message}. Stopping what did start.`)
    // A media store still starting is let finish (each of its steps is bounded) so that stopping finds every daemon.
    await mediaStore?.catch(() => undefined)
    await stopCluster().catch(() => undefined)
    throw error
  }
  return layout
}

/** Sends `signal` to a cluster process and waits (bounded) until it has exited. */
async function stopProcess(name: string, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
  const pid = readPid(name)
  if (alive(pid)) {
    try {
      process.kill(pid!, signal)
    } catch {
      // already gone
    }
    const deadline = Date.now() + timeoutMs
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    if (alive(pid)) process.kill(pid!, 'SIGKILL')
  }
  rmSync(pidFile(name), { force: true })
}

/**
 * Stops everything, each process awaited: the instances first (they drain, and need the
 * database through HAProxy and the media store meanwhile), then HAProxy and Varnish, Redis and
 * the Sentinels with the media store (gateway, OSD, monitor, in that order), Patroni (which
 * stops its PostgreSQL), etcd.
 */
export async function stopCluster(options: { removeState?: boolean } = {}): Promise<void> {
  await Promise.all(layout.ports.apps.map((_, i) => stopProcess(`app-${i + 1}`)))
  await stopProcess('haproxy', 'SIGTERM', 5_000)
  await stopProcess('varnish')
  await Promise.all([...redisNodes().map((node) => stopProcess(node.name)), ...layout.ports.sentinels.map((_, i) => stopProcess(`sentinel-${i + 1}`)), stopObjectStore(objectStoreDir())])
  await Promise.all(databaseNodes.map((name) => stopProcess(`patroni-${name}`, 'SIGTERM', 30_000)))
  // A PostgreSQL whose Patroni was killed (a test's failover) is stopped directly.
  for (const name of databaseNodes) {
    const dir = path.join(layout.dir, name)
    if (existsSync(path.join(dir, 'postmaster.pid'))) {
      try {
        run(pg('pg_ctl'), ['-D', dir, '-m', 'immediate', '-w', 'stop'], { asPostgres: true, quiet: true })
      } catch {
        // not running after all
      }
    }
  }
  await stopProcess('etcd')
  if (options.removeState) rmSync(layout.dir, { recursive: true, force: true })
}

function portOpen(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** `npm run cluster -- status`: each process, its pid and whether it runs; the database and Redis roles. */
async function status(): Promise<string> {
  const lines = [`Cluster on port base ${layout.base} (state, logs: ${layout.dir}):`]
  for (const name of clusterPidNames()) {
    const pid = readPid(name)
    lines.push(`  ${name.padEnd(16)} ${alive(pid) ? `running (pid ${pid})` : 'stopped'}`)
  }
  const members = await databaseMembers()
  lines.push(`  PostgreSQL (Patroni): ${members.length > 0 ? members.map((member) => `${member.name} ${member.role} ${member.state}`).join(', ') : 'no answer'}`)
  const master = await sentinelMaster()
  lines.push(`  Redis master (Sentinel): ${master ?? 'no answer'}`)
  const gateway = await httpStatus(layout.appEnv.MEDIA_S3_ENDPOINT!)
  lines.push(`  Media store (RADOS Gateway): ${layout.appEnv.MEDIA_S3_ENDPOINT} bucket ${layout.appEnv.MEDIA_S3_BUCKET}, ${gateway > 0 ? `answering (${gateway})` : 'no answer'}`)
  const backups = existsSync(path.join(clusterBackups().dir, 'pgbackrest.conf')) ? ((backupInfo(clusterBackups()) as { backup?: { type: string; timestamp: { stop: number } }[] }[])[0]?.backup ?? []) : []
  const newest = backups.at(-1)
  lines.push(`  pgBackRest (${clusterBackups().dir}): ${backups.length} backup(s)${newest ? `, newest ${newest.type} at ${new Date(newest.timestamp.stop * 1000).toISOString()}` : ''}`)
  return lines.join('\n')
}

/** The Redis master the Sentinels agree on now ("127.0.0.1:port"), if they answer. */
export async function sentinelMaster(): Promise<string | undefined> {
  for (const port of layout.ports.sentinels) {
    try {
      const answer = run('redis-cli', ['-p', String(port), '--raw', 'SENTINEL', 'get-master-addr-by-name', 'newsroom'], { quiet: true }).trim().split('\n')
      if (answer.length === 2) return `${answer[0]}:${answer[1]}`
    } catch {
      // this Sentinel is down: ask the next
    }
  }
  return undefined
}

async function main() {
  const command = process.argv[2] ?? 'start'
  if (command === 'stop') {
    await stopCluster()
    console.log('Cluster stopped.')
    return
  }
  if (command === 'status') {
    console.log(await status())
    return
  }
  if (command === 'start') {
    const started = await startCluster()
    console.log(
      [
        `Cluster up (state, logs: ${started.dir}):`,
        `  HAProxy (portal, /v1)          http://127.0.0.1:${started.ports.haproxy}  (access log: haproxy.log)`,
        `  Varnish (/content/v1)          http://127.0.0.1:${started.ports.varnish}`,
        `  app instances                  ${started.ports.apps.map((port) => `:${port}`).join(' ')}`,
        `  PostgreSQL writes / reads      :${started.ports.databaseWrites} / :${started.ports.databaseReads} (HAProxy → Patroni nodes :${started.ports.postgres.join(', :')})`,
        `  Redis master / Sentinels       :${started.ports.redis} / :${started.ports.sentinels.join(', :')}`,
        `  Media store (RADOS Gateway)    ${started.appEnv.MEDIA_S3_ENDPOINT}  bucket ${started.appEnv.MEDIA_S3_BUCKET}  (Ceph monitor :${started.ports.objectStore}, logs: object-store/log)`,
        'Status: npm run cluster -- status    Stop: npm run cluster -- stop',
      ].join('\n'),
    )
    return
  }
  throw new Error(`Unknown command ${command}: use start, status or stop.`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: Error) => {
    console.error(error.message)
    process.exit(1)
  })
}
