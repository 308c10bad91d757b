/**
 * A sampled allocation profile (V8's HeapProfiler sampling, with the objects the collector
 * freed included: bench/alloc-profile-preload.mjs writes one) as bytes allocated by function,
 * self and with callers' chains, frames in Next's minified chunks mapped back to `lib/…` through
 * their source maps as bench/cpu-profile-summary.ts does.
 *
 *   npx tsx bench/alloc-profile-summary.ts <alloc-<pid>.json> [requests answered] [top N]
 */
import { readFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SourceMapConsumer } from 'source-map-js'

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number }
type Node = { callFrame: Frame; selfSize: number; children?: Node[] }

const [file, requestsArg, topArg] = process.argv.slice(2)
if (!file) throw new Error('usage: alloc-profile-summary.ts <profile.json> [requests] [top]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: Node }
const requests = Number(requestsArg ?? 0)
const top = Number(topArg ?? 30)

const consumers = new Map<string, SourceMapConsumer | null>()
function consumerOf(url: string): SourceMapConsumer | null {
  if (consumers.has(url)) return consumers.get(url)!
  let consumer: SourceMapConsumer | null = null
  try {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url
    if (existsSync(`${path}.map`)) consumer = new SourceMapConsumer(JSON.parse(readFileSync(`${path}.map`, 'utf8')))
  } catch {
    consumer = null
  }
  consumers.set(url, consumer)
  return consumer
}

function nameOf(frame: Frame): string {
  const { url, functionName, lineNumber, columnNumber } = frame
  if (!url) return functionName || '(native)'
  const consumer = consumerOf(url)
  if (consumer) {
    const original = consumer.originalPositionFor({ line: lineNumber + 1, column: columnNumber })
    if (original.source) return `${original.source.replace(/^.*?\.\.\/\.\.\/\.\.\//, '').replace(/^.*node_modules\//, '')}:${original.line} ${original.name ?? functionName}`
  }
  return `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/\.next\//, '.next/')}:${lineNumber} ${functionName || '(anonymous)'}`
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
