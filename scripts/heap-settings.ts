/**
 * The heap settings `npm start` hands to node (package.json: NEWSROOM_HEAP_MB,
 * NEWSROOM_HEAP_GROWING_PERCENT, docs/operators.md), checked by the server's entry before it
 * starts. Node itself refuses what is not a number (`512MB`: "bad option"), but runs on with 0 or
 * -1 as if no limit were set (V8 sizes the heap for the machine), and takes a negative growing
 * percent. A limit given the usual Node way, in NODE_OPTIONS, is overridden by npm start's flag,
 * which comes after it: an operator would believe a 2 GB heap while running on 320 MB.
 */
export function heapSettingsRefusal(env: NodeJS.ProcessEnv): string | undefined {
  const problems: string[] = []
  const heapMb = env.NEWSROOM_HEAP_MB?.trim()
  if (heapMb && !(/^\d+$/.test(heapMb) && Number(heapMb) >= 64)) {
    problems.push(`NEWSROOM_HEAP_MB must be a whole number of megabytes, at least 64 (such as 512), not '${env.NEWSROOM_HEAP_MB}'.`)
  }
  const growing = env.NEWSROOM_HEAP_GROWING_PERCENT?.trim()
  if (growing && !(/^\d+$/.test(growing) && Number(growing) <= 1000)) {
    problems.push(`NEWSROOM_HEAP_GROWING_PERCENT must be a whole number of per cent from 0 to 1000 (such as 60), not '${env.NEWSROOM_HEAP_GROWING_PERCENT}'.`)
  }
  if (/--max[-_]old[-_]space[-_]size/.test(env.NODE_OPTIONS ?? '')) {
    problems.push(`NODE_OPTIONS sets --max-old-space-size, which npm start's own limit overrides (NEWSROOM_HEAP_MB, ${heapMb || '320 by default'}): set NEWSROOM_HEAP_MB instead and leave it out of NODE_OPTIONS.`)
  }
  return problems.length ? `Refusing to start: ${problems.join(' ')}` : undefined
}
