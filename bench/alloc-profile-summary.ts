/**
 * A sampled allocation profile (V8's HeapProfiler sampling, with the objects the collector
 * freed included: bench/alloc-profile-preload.mjs writes one) as bytes allocated by function,
 * self and with callers' chains, frames in Next's minified chunks mapped back to `lib/…` through
 * their source maps (bench/profile-frames.ts, as bench/cpu-profile-summary.ts does).
 *
 *   npx tsx bench/alloc-profile-summary.ts <alloc-<pid>.json> [requests answered] [top N]
 */
import { readFileSync } from 'node:fs'
import { where, type Frame } from './profile-frames.ts'

type Node = { callFrame: Frame; selfSize: number; children?: Node[] }

const [file, requestsArg, topArg] = process.argv.slice(2)
if (!file) throw new Error('usage: alloc-profile-summary.ts <profile.json> [requests] [top]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: Node }
const requests = Number(requestsArg ?? 0)
const top = Number(topArg ?? 30)

function nameOf(frame: Frame): string {
  const { module, fn } = where(frame)
  return `${module} ${fn}`
}

const self = new Map<string, number>()
const chains = new Map<string, number>()
let total = 0
function walk(node: Node, path: string[]): void {
  const name = nameOf(node.callFrame)
  const here = [...path, name]
  if (node.selfSize > 0) {
    total += node.selfSize
    self.set(name, (self.get(name) ?? 0) + node.selfSize)
    const chain = here.slice(-4).reverse().join('  <-  ')
    chains.set(chain, (chains.get(chain) ?? 0) + node.selfSize)
  }
  for (const child of node.children ?? []) walk(child, here)
}
walk(profile.head, [])

const show = (bytes: number) => `${(bytes / 1e6).toFixed(1).padStart(7)} MB${requests ? `  ${((bytes / requests) / 1e3).toFixed(1).padStart(7)} KB/req` : ''}`
console.log(`allocated ${show(total)}`)
console.log('\nby function (self)')
for (const [name, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${show(bytes)}  ${name}`)
console.log('\nby chain (function <- callers)')
for (const [chain, bytes] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${show(bytes)}  ${chain}`)
