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

function cpuByPidNamed(name: string): Map<number, number> {
  const cpu = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) cpu.set(Number(entry), cpuMs(Number(entry)))
    } catch {
      // the process ended while we looked
    }
  }
  return cpu
}

export type CpuShares = { server: number; postgres: number; redis: number; loadGenerator?: number }
type CpuSnapshot = { server: number; postgres: Map<number, number>; redis: Map<number, number> }

/**
 * CPU time (ms) of the server measured (the service or the baseline) and of each PostgreSQL and Redis process on this machine, so a
 * measurement can say where a cost lands: they share the machine's cores.
 */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  return { server: cpuMs(serverPid), postgres: cpuByPidNamed('postgres'), redis: cpuByPidNamed('redis-server') }
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
  }
}
