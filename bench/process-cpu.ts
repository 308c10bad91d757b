import { readdirSync, readFileSync } from 'node:fs'

// Linux reports process times in clock ticks: 100 a second on every kernel these machines run.
const msPerTick = 10

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * msPerTick
  } catch {
    return 0 // the process ended while we looked
  }
}

// The database whose PostgreSQL backends are counted (measurePostgresOf); null counts them all.
let measuredDatabase: string | null = null

/**
 * Counts only the PostgreSQL work of `database` from now on: its client backends and autovacuum
 * workers. Not the backends of other databases on the same server (another bench seeding, a test
 * run), nor the processes every database shares (checkpointer, WAL writer, background writer),
 * which on a shared machine mostly work for the others: an editors run measured -656 ms/s of
 * PostgreSQL beside a seeding, and a server with no client at all 83 ms/s of shared processes.
 */
export function measurePostgresOf(database: string | null): void {
  measuredDatabase = database
}

// "postgres: 15/main: <user> <database> <host>(<port>) <state>", "postgres: 15/main: autovacuum worker <database>".
const backendTitle = /^postgres: [^:]+: (?:\S+ (\S+) (?:\S+\(\d+\)|\[local\])|autovacuum worker (\S+))/

function countedPostgres(pid: string): boolean {
  if (measuredDatabase === null) return true
  const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  const match = backendTitle.exec(title)
  return match !== null && (match[1] ?? match[2]) === measuredDatabase
}

function cpuByPidNamed(name: string): Map<number, number> {
  const cpu = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name && (name !== 'postgres' || countedPostgres(entry))) cpu.set(Number(entry), cpuMs(Number(entry)))
    } catch {
      // the process ended while we looked
    }
  }
  return cpu
}

/**
 * The whole machine's time, from /proc/stat, in µs per request: what no process is charged with.
 * `kernel` is system, irq and softirq time (a WAL fsync's work, the network stack), `iowait` and
 * `idle` time no process wanted the cores for, and `steal` time the host gave to someone else
 * while a core wanted to run here (on a VM it shrinks what every process measured could do).
 */
export type MachineTimes = { busy: number; kernel: number; iowait: number; idle: number; steal: number }
export type CpuShares = { server: number; postgres: number; redis: number; loadGenerator?: number; machine?: MachineTimes }
type CpuSnapshot = { server: number; postgres: Map<number, number>; redis: Map<number, number>; machine: MachineTimes }

function machineTimesMs(): MachineTimes {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map((ticks) => Number(ticks) * msPerTick)
    return { busy: user! + nice! + system! + irq! + softirq!, kernel: system! + irq! + softirq!, iowait: iowait!, idle: idle!, steal: steal! }
  } catch {
    return { busy: 0, kernel: 0, iowait: 0, idle: 0, steal: 0 } // not Linux: nothing to say
  }
}

/**
 * CPU time (ms) of the server measured (the service or the baseline) and of each PostgreSQL and Redis process on this machine, so a
 * measurement can say where a cost lands: they share the machine's cores.
 */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  return { server: cpuMs(serverPid), postgres: cpuByPidNamed('postgres'), redis: cpuByPidNamed('redis-server'), machine: machineTimesMs() }
}

/**
 * CPU spent between two snapshots, in µs per request. A process that started in between counts
 * whole; one that ended in between (an autovacuum worker) is missed, its last times unknown.
 */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuShares {
  const spent = (was: Map<number, number>, is: Map<number, number>) => [...is].reduce((total, [pid, ms]) => total + ms - (was.get(pid) ?? 0), 0)
  const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(1, requests))
  return {
    server: perRequest(after.server - before.server),
    postgres: perRequest(spent(before.postgres, after.postgres)),
    redis: perRequest(spent(before.redis, after.redis)),
    machine: {
      busy: perRequest(after.machine.busy - before.machine.busy),
      kernel: perRequest(after.machine.kernel - before.machine.kernel),
      iowait: perRequest(after.machine.iowait - before.machine.iowait),
      idle: perRequest(after.machine.idle - before.machine.idle),
      steal: perRequest(after.machine.steal - before.machine.steal),
    },
  }
}
