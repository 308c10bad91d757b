import { readdirSync, readFileSync } from 'node:fs'

export type MemorySampler = { currentMb: () => number; peakMb: () => number; stop: () => void }

function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === pid) children.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return children
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** Resident memory of a process and all its descendants (Next may run its server in a child). */
function treeRssMb(pid: number): number {
  let total = 0
  const queue = [pid]
  while (queue.length) {
    const current = queue.pop()!
    total += rssKb(current)
    queue.push(...childrenOf(current))
  }
  return Math.round(total / 102.4) / 10
}

export function sampleMemory(pid: number, everyMs = 1_000): MemorySampler {
  let peak = treeRssMb(pid)
  let current = peak
  const timer = setInterval(() => {
    current = treeRssMb(pid)
    peak = Math.max(peak, current)
  }, everyMs)
  timer.unref()
  return { currentMb: () => (current = treeRssMb(pid)), peakMb: () => peak, stop: () => clearInterval(timer) }
}
