/**
 * Where a V8 profile's frame stands in the source (bench/cpu-profile-summary.ts,
 * bench/alloc-profile-summary.ts): frames in Next's minified server chunks are mapped back to
 * their source files through the chunks' own source maps, so `lib/json-bytes.ts` shows as itself.
 */
import { readFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SourceMapConsumer } from 'source-map-js'

export type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number }

const consumers = new Map<string, SourceMapConsumer | null>()
function consumerOf(url: string): SourceMapConsumer | null {
  if (consumers.has(url)) return consumers.get(url)!
  let consumer: SourceMapConsumer | null = null
  try {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url
    if (existsSync(`${path}.map`)) {
      const map = JSON.parse(readFileSync(`${path}.map`, 'utf8'))
      // Turbopack writes index maps (sections); source-map-js reads them.
      consumer = new SourceMapConsumer(map)
    }
  } catch {
    consumer = null
  }
  consumers.set(url, consumer)
  return consumer
}

export function where(frame: Frame): { module: string; fn: string } {
  const { url, functionName, lineNumber, columnNumber } = frame
  if (!url) return { module: functionName.startsWith('(') ? functionName : '(native)', fn: functionName || '(anonymous)' }
  const consumer = consumerOf(url)
  if (consumer) {
    const original = consumer.originalPositionFor({ line: lineNumber + 1, column: columnNumber })
    if (original.source) {
      const source = original.source.replace(/^.*?\.\.\/\.\.\/\.\.\//, '').replace(/%40/g, '@')
      return { module: source, fn: `${original.name ?? functionName ?? '(anonymous)'}:${original.line}` }
    }
  }
  const source = url.replace(/^file:\/\/.*?\/node_modules\//, 'node_modules/').replace(/^file:\/\/\/work\/wt\/[^/]+\//, '').replace(/^node:/, 'node:')
  return { module: source, fn: `${functionName || '(anonymous)'}:${lineNumber + 1}` }
}

