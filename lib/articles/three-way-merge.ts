/**
 * The merge a conflicting save offers (issue 45): the version the editor started from (base),
 * what they typed (mine) and the version saved meanwhile (theirs), compared per field. A field
 * only one side changed takes that side without asking; a field both changed the same way is
 * that; only a field both changed differently is a conflict, which asks, and nothing is chosen
 * for the person in advance. The body is merged by block (paragraph, heading, list…): where the
 * two sides changed different paragraphs, both changes are kept, and only paragraphs both sides
 * changed are a conflict. Pure, so the rule is tested without a browser.
 */

export type Side = 'mine' | 'theirs'

/** A stretch of the merged body: settled blocks, or blocks both sides changed differently. */
export type BodyChunk = { kind: 'settled'; blocks: string[] } | { kind: 'conflict'; base: string[]; mine: string[]; theirs: string[] }

export type FieldMerge =
  | { outcome: 'unchanged' | 'mine' | 'theirs' | 'same' | 'combined'; value: string }
  | { outcome: 'conflict'; base: string; mine: string; theirs: string; chunks?: BodyChunk[] }

export type MergeResult<Field extends string> = { fields: Record<Field, FieldMerge>; conflicts: Field[] }

/**
 * Merges per field. `blockFields` are HTML merged by block (the body); every other field is one
 * value. Values are compared as given: normalise them (tags' spacing) before.
 */
export function threeWayMerge<Field extends string>(
  base: Record<Field, string>,
  mine: Record<Field, string>,
  theirs: Record<Field, string>,
  { blockFields = [] }: { blockFields?: NoInfer<Field>[] } = {},
): MergeResult<Field> {
  const fields = {} as Record<Field, FieldMerge>
  const conflicts: Field[] = []
  for (const field of Object.keys(base) as Field[]) {
    const merged = blockFields.includes(field) ? mergeBlocks(base[field], mine[field], theirs[field]) : mergeValue(base[field], mine[field], theirs[field])
    fields[field] = merged
    if (merged.outcome === 'conflict') conflicts.push(field)
  }
  return { fields, conflicts }
}

function mergeValue(base: string, mine: string, theirs: string): FieldMerge {
  if (mine === theirs) return { outcome: mine === base ? 'unchanged' : 'same', value: mine }
  if (mine === base) return { outcome: 'theirs', value: theirs }
  if (theirs === base) return { outcome: 'mine', value: mine }
  return { outcome: 'conflict', base, mine, theirs }
}

/** A field's value once the person chose a side for it (for the body: for its conflicting paragraphs only). */
export function resolveField(merge: FieldMerge, side: Side): string {
  if (merge.outcome !== 'conflict') return merge.value
  if (!merge.chunks) return merge[side]
  return merge.chunks.flatMap((chunk) => (chunk.kind === 'settled' ? chunk.blocks : chunk[side])).join('')
}

/** The part of a field the two sides disagree on: for the body, only its conflicting paragraphs. */
export function conflictingText(merge: FieldMerge, side: Side): string {
  if (merge.outcome !== 'conflict') return merge.value
  if (!merge.chunks) return merge[side]
  return merge.chunks.flatMap((chunk) => (chunk.kind === 'conflict' ? chunk[side] : [])).join('')
}

function mergeBlocks(base: string, mine: string, theirs: string): FieldMerge {
  const simple = mergeValue(base, mine, theirs)
  if (simple.outcome !== 'conflict') return simple
  const chunks = diff3(splitBlocks(base), splitBlocks(mine), splitBlocks(theirs))
  if (chunks.every((chunk) => chunk.kind === 'settled')) return { outcome: 'combined', value: chunks.flatMap((chunk) => (chunk.kind === 'settled' ? chunk.blocks : [])).join('') }
  return { outcome: 'conflict', base, mine, theirs, chunks }
}

const voidElements = new Set(['br', 'img', 'hr', 'input', 'wbr', 'source'])

/**
 * The body's top-level blocks (each <p>, <h2>, <ul>, <blockquote>… with what it holds), as the
 * editor writes them; text outside any element is a block of its own. Whitespace between blocks
 * is dropped, so re-indented HTML is the same body; at the ends of such text it stays one space.
 */
export function splitBlocks(html: string): string[] {
  const blocks: string[] = []
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(\/?)>/g
  let depth = 0
  let start = 0
  let match: RegExpExecArray | null
  // Text outside any element (an integration's body may have it) keeps a space at its ends as
  // one space: it separates words from the inline elements beside it ("run <em>hourly</em> from"),
  // and dropping it would run them together when the blocks are joined again.
  const pushText = (text: string) => {
    if (text.trim()) blocks.push(text.replace(/^\s+/, ' ').replace(/\s+$/, ' '))
  }
  while ((match = tag.exec(html))) {
    const [whole, closing, name, selfClosing] = match
    const isVoid = voidElements.has(name!.toLowerCase()) || selfClosing === '/'
    if (depth === 0 && !closing) {
      pushText(html.slice(start, match.index))
      start = match.index
    }
    if (isVoid) {
      if (depth === 0) {
        blocks.push(whole)
        start = match.index + whole.length
      }
      continue
    }
    depth += closing ? -1 : 1
    if (depth <= 0) {
      depth = 0
      blocks.push(html.slice(start, match.index + whole.length))
      start = match.index + whole.length
    }
  }
  pushText(html.slice(start))
  return blocks
}

/** Where `side` differs from `base`: base[oStart, oEnd) became side[sStart, sEnd). */
type Hunk = { oStart: number; oEnd: number; sStart: number; sEnd: number; side: Side }

/** The longest common subsequence of two block lists, as matched index pairs in order. */
function matches(a: string[], b: string[]): [number, number][] {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!)
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) pairs.push([i++, j++])
    else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++
    else j++
  }
  return pairs
}

function hunks(base: string[], other: string[], side: Side): Hunk[] {
  const found: Hunk[] = []
  let o = 0
  let s = 0
  for (const [oi, si] of [...matches(base, other), [base.length, other.length] as [number, number]]) {
    // As many blocks in as out: each paragraph was edited in place, so each is its own change
    // (two people editing neighbouring paragraphs did not touch the same one).
    if (oi - o === si - s) for (let k = 0; k < oi - o; k++) found.push({ oStart: o + k, oEnd: o + k + 1, sStart: s + k, sEnd: s + k + 1, side })
    else if (oi > o || si > s) found.push({ oStart: o, oEnd: oi, sStart: s, sEnd: si, side })
    o = oi + 1
    s = si + 1
  }
  return found
}

/**
 * A three-way merge of block lists: each side's changes against base, in base order; changes
 * that touch different blocks are both applied; changes to the same blocks (or two insertions at
 * one place) are a conflict unless both sides made the same change.
 */
export function diff3(base: string[], mine: string[], theirs: string[]): BodyChunk[] {
  const all = [...hunks(base, mine, 'mine'), ...hunks(base, theirs, 'theirs')].sort((a, b) => a.oStart - b.oStart || a.oEnd - b.oEnd)
  const chunks: BodyChunk[] = []
  const sides = { mine, theirs }
  const settle = (blocks: string[]) => {
    if (blocks.length === 0) return
    const last = chunks.at(-1)
    if (last?.kind === 'settled') last.blocks.push(...blocks)
    else chunks.push({ kind: 'settled', blocks: [...blocks] })
  }
  let o = 0
  for (let i = 0; i < all.length; ) {
    // A region: hunks that overlap in base, or insert at the same place.
    const region = [all[i]!]
    let end = all[i]!.oEnd
    let j = i + 1
    for (; j < all.length; j++) {
      const next = all[j]!
      // Two insertions at one place have no order to keep both in; any other touching changes do.
      const overlaps = next.oStart < end || (next.oStart === next.oEnd && region.some((hunk) => hunk.oStart === hunk.oEnd && hunk.oStart === next.oStart))
      if (!overlaps) break
      region.push(next)
      end = Math.max(end, next.oEnd)
    }
    const start = region[0]!.oStart
    settle(base.slice(o, start))
    // What each side made of base[start, end): its hunks' blocks, with base's blocks between them.
    const made = (side: Side): string[] | null => {
      const own = region.filter((hunk) => hunk.side === side)
      if (own.length === 0) return null
      const out: string[] = []
      let at = start
      for (const hunk of own) {
        out.push(...base.slice(at, hunk.oStart), ...sides[side].slice(hunk.sStart, hunk.sEnd))
        at = hunk.oEnd
      }
      out.push(...base.slice(at, end))
      return out
    }
    const byMine = made('mine')
    const byTheirs = made('theirs')
    if (!byMine) settle(byTheirs!)
    else if (!byTheirs) settle(byMine)
    else if (byMine.join('\u0000') === byTheirs.join('\u0000')) settle(byMine)
    else chunks.push({ kind: 'conflict', base: base.slice(start, end), mine: byMine, theirs: byTheirs })
    o = end
    i = j
  }
  settle(base.slice(o))
  return chunks
}
