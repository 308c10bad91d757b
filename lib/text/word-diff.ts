/** One run of a word-level diff: words both texts share, or only the old (removed) or new (added) one has. */
export type DiffPart = { kind: 'same' | 'removed' | 'added'; text: string }

// Beyond this many cells the changed middle is shown as one removal and one addition instead of
// being aligned word by word (an LCS table of 4M cells is ~16 MB and a few hundred ms).
const maxCells = 4_000_000

/**
 * Words, runs of whitespace and single punctuation marks, so that "back." → "back, and more."
 * keeps "back" and joining the tokens gives the text back.
 */
function tokens(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}\p{M}'’-]+|[^\s\p{L}\p{N}\p{M}'’-]/gu) ?? []
}

/**
 * A readable word-level diff from `before` to `after`: the common start and end are kept whole,
 * the middle is aligned by longest common subsequence of words, and neighbouring runs of the
 * same kind are merged.
 */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokens(before)
  const b = tokens(after)
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const parts: DiffPart[] = []
  const push = (kind: DiffPart['kind'], text: string) => {
    if (!text) return
    const last = parts.at(-1)
    if (last?.kind === kind) last.text += text
    else parts.push({ kind, text })
  }
  push('same', a.slice(0, start).join(''))
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  if (midA.length * midB.length > maxCells) {
    push('removed', midA.join(''))
    push('added', midB.join(''))
  } else {
    for (const part of alignMiddle(midA, midB)) push(part.kind, part.text)
  }
  push('same', a.slice(endA).join(''))
  return parts
}

function alignMiddle(a: string[], b: string[]): DiffPart[] {
  const rows = a.length + 1
  const cols = b.length + 1
  // lengths[i * cols + j]: the LCS length of a[i..] and b[j..].
  const lengths = new Uint32Array(rows * cols)
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * cols + j] = a[i] === b[j] ? lengths[(i + 1) * cols + j + 1]! + 1 : Math.max(lengths[(i + 1) * cols + j]!, lengths[i * cols + j + 1]!)
    }
  }
  const parts: DiffPart[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      parts.push({ kind: 'same', text: a[i++]! })
      j++
    } else if (lengths[(i + 1) * cols + j]! >= lengths[i * cols + j + 1]!) parts.push({ kind: 'removed', text: a[i++]! })
    else parts.push({ kind: 'added', text: b[j++]! })
  }
  while (i < a.length) parts.push({ kind: 'removed', text: a[i++]! })
  while (j < b.length) parts.push({ kind: 'added', text: b[j++]! })
  return parts
}

/** An article body's text as a reader sees it, for comparing versions: tags dropped, common entities decoded. */
export function htmlToText(html: string | null): string {
  if (!html) return ''
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/(p|h[1-6]|li|blockquote|div)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .trim()
}
