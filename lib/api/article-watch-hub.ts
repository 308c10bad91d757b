import { readWatchStates, watchTag } from '../articles/watch-article.ts'
import { watchCheckSeconds } from '../articles/lease-timing.ts'
import { processSingleton } from '../process-singleton.ts'
import { isDraining } from '../server/lifecycle.ts'

/**
 * The article pages' polls the server holds (portal-watch-route.ts, `Prefer: wait=…`) until what
 * they show changes. Every `watchCheckSeconds` one statement per newsroom reads the watch states
 * of all its held pages' articles (readWatchStates), and each page whose tag no longer matches,
 * whose hold is up, or whose server is stopping is let go; the route then answers it exactly as
 * an unheld poll, session check included. So an open page costs one request per change or per
 * hold (25 s), and the server one statement per newsroom every 2 s, instead of a request from
 * every page every 3 s: each request woke the server for ~1.2 ms of CPU on this machine
 * (bench/results/editors-2026-11-26-*.md).
 */
type HeldPoll = { tenantId: string; articleId: string; knownTag: string; until: number; release: () => void }

const held = processSingleton('held article polls', () => ({ polls: new Set<HeldPoll>(), timer: undefined as NodeJS.Timeout | undefined, checking: false }))

/** Resolves when the article's tag is no longer `knownTag`, at `until` (epoch ms), or when the server starts stopping. */
export function articleChangeOrTimeout(tenantId: string, articleId: string, knownTag: string, until: number): Promise<void> {
  return new Promise((resolve) => {
    held.polls.add({ tenantId, articleId, knownTag, until, release: resolve })
    held.timer ??= setInterval(() => void checkHeldPolls(), watchCheckSeconds * 1000)
  })
}

async function checkHeldPolls(): Promise<void> {
  if (held.checking) return
  held.checking = true
  try {
    const byNewsroom = new Map<string, HeldPoll[]>()
    for (const poll of held.polls) {
      const polls = byNewsroom.get(poll.tenantId)
      if (polls) polls.push(poll)
      else byNewsroom.set(poll.tenantId, [poll])
    }
    const now = Date.now()
    const stopping = isDraining()
    await Promise.all(
      [...byNewsroom].map(async ([tenantId, polls]) => {
        // A failed read lets the newsroom's polls go: the route's own check then answers or fails each.
        const states = await readWatchStates(tenantId, [...new Set(polls.map((poll) => poll.articleId))]).catch(() => null)
        for (const poll of polls) {
          const state = states?.get(poll.articleId)
          const changed = !state || watchTag(state) !== poll.knownTag
          if (changed || stopping || now >= poll.until) release(poll)
        }
      }),
    )
  } finally {
    held.checking = false
    if (held.polls.size === 0 && held.timer) {
      clearInterval(held.timer)
      held.timer = undefined
    }
  }
}

function release(poll: HeldPoll): void {
  held.polls.delete(poll)
  poll.release()
}

/** How many polls this process holds (tests, metrics). */
export function heldArticlePolls(): number {
  return held.polls.size
}
