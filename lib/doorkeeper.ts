import { randomInt } from 'node:crypto'

/**
 * Remembers the keys asked for lately, so that a cache keeps a thing the second time it is
 * asked, not the first: most of what is asked once (a sync walking its pages, a search, the
 * bench's cold lists) is never asked again, and keeping it would push out what is asked again
 * and again (the response cache, lib/api/response-cache.ts; the rendered article records,
 * lib/articles/rendered-records.ts).
 *
 * Two generations of up to `generationSize` keys, the older dropped whole when the newer fills:
 * it remembers the last `generationSize` to twice that many keys, at constant work a key.
 * Evicting the oldest key of one set instead (an iterator from its front, past the holes its
 * deletions leave) was 1.9 % of a cold list's CPU at 1,000,000 articles (issue 50).
 *
 * Each generation is a table of 32-bit fingerprints of its keys (open addressing, at most half
 * full), not a Set of the keys: a Set grew by rehashing from empty after every switch, kept each
 * key string alive (into the old generation, for the collector to mark), and was dropped whole,
 * ~2 µs a key on a cold list page (2.8 % of its CPU, --cpu-prof), where the tables are two
 * arrays made once and cleared in place. Two keys with the same fingerprint are taken for one,
 * about once in 2^32 / (2 × generationSize) askings of a new key: that key is then kept on its
 * first asking instead of its second, which costs memory for a moment, never a wrong answer.
 */
export class Doorkeeper {
  private recent: Uint32Array
  private older: Uint32Array
  private recentCount = 0
  private readonly shift: number

  constructor(private readonly generationSize: number) {
    const bits = Math.max(1, Math.ceil(Math.log2(generationSize * 2)))
    this.recent = new Uint32Array(2 ** bits)
    this.older = new Uint32Array(2 ** bits)
    this.shift = 32 - bits
  }

  /** Whether `key` was asked for lately; remembers it if not. */
  askedBefore(key: string): boolean {
    const print = fingerprint(key)
    // The slot from the fingerprint's high bits, mixed (Fibonacci hashing): the low bits of
    // keys that differ only at their end vary little.
    const home = Math.imul(print, 0x9e3779b1) >>> this.shift
    if (holds(this.older, print, home)) return true
    const slot = findSlot(this.recent, print, home)
    if (this.recent[slot] === print) return true
    if (this.recentCount >= this.generationSize) {
      const emptied = this.older.fill(0)
      this.older = this.recent
      this.recent = emptied
      this.recentCount = 0
      this.recent[findSlot(this.recent, print, home)] = print
    } else this.recent[slot] = print
    this.recentCount++
    return false
  }

  clear(): void {
    this.recent.fill(0)
    this.older.fill(0)
    this.recentCount = 0
  }
}

// FNV-1a's start, different in every process: the response cache's keys are the clients' URLs,
// and with a known start a client could work out many that share a slot, for long probes.
const seed = (0x811c9dc5 ^ randomInt(2 ** 32 - 1)) >>> 0

/** FNV-1a (from a random start) over the key's UTF-16 code units; 0 marks an empty slot, so it is never a fingerprint. */
function fingerprint(key: string): number {
  let hash = seed
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193)
  return hash >>> 0 || 1
}

/** The slot holding `print`, or the empty one where it would go (the table is never full). */
function findSlot(table: Uint32Array, print: number, home: number): number {
  const mask = table.length - 1
  let slot = home
  while (table[slot] !== 0 && table[slot] !== print) slot = (slot + 1) & mask
  return slot
}

function holds(table: Uint32Array, print: number, home: number): boolean {
  return table[findSlot(table, print, home)] === print
}
