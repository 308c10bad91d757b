/**
 * What building a cold list page's records and rendering them to bytes costs in two checkouts,
 * in one process each, in turns (issue 50): the CPU a 50-article page of a bench database takes
 * through storedArticleRecord and jsonBytes, and whether both give the same bytes. On a shared
 * machine whose phases swamp a few hundred µs in the interleaved A/B of the served row, this
 * isolates the part of a page a change to the records or the renderer touches.
 *
 *   RENDER_DATABASE=<bench copy> npx tsx bench/render-page-ab.ts /path/before /path/after [rounds] [turns]
 */
import { spawnSync } from 'node:child_process'
import pg from 'pg'

const [before, after, roundsArg, turnsArg] = process.argv.slice(2)
const database = process.env.RENDER_DATABASE ?? 'newsroom_bench_run'
const databaseUrl = `postgresql://postgres@127.0.0.1:5432/${database}`

type Side = {
  jsonBytes: (value: unknown) => Buffer
  RenderedJson: new (json: unknown) => unknown
  UnrenderedObject: new (value: unknown) => unknown
  storedArticleRecord: (row: never) => Record<string, unknown>
  articleRecordColumns: string
}
const load = async (checkout: string): Promise<Side> => ({
  ...(await import(`${checkout}/lib/json-bytes.ts`)),
  ...(await import(`${checkout}/lib/rendered-json.ts`)),
  ...(await import(`${checkout}/lib/articles/article-record.ts`)),
  ...(await import(`${checkout}/lib/articles/article-rows.ts`)),
})

async function pagesOf(side: Side, count: number): Promise<unknown[][]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const pages: unknown[][] = []
  // Whole pages in a fixed order (by id), every kind of article: the same rows for both sides.
  for (let page = 0; page < count; page++) pages.push((await client.query(`SELECT ${side.articleRecordColumns} FROM articles ORDER BY id OFFSET ${page * 1_999} LIMIT 50`)).rows)
  await client.end()
  return pages
}

const render = (side: Side, rows: unknown[]) => side.jsonBytes({ items: rows.map((row) => new side.RenderedJson(new side.UnrenderedObject(side.storedArticleRecord(row as never)))), total: 100_000, limit: 50, offset: 0, next_offset: 50 })

if (process.env.RENDER_CHILD) {
  // One side's turn: warm up, then the CPU a page.
  const side = await load(process.env.RENDER_CHILD)
  const pages = await pagesOf(side, 40)
  const rounds = Number(roundsArg ?? 1_000)
  for (let round = 0; round < 200; round++) render(side, pages[round % pages.length]!)
  const used = process.cpuUsage()
  for (let round = 0; round < rounds; round++) render(side, pages[round % pages.length]!)
  const spent = process.cpuUsage(used)
  console.log(Math.round((spent.user + spent.system) / rounds))
} else {
  if (!before || !after) throw new Error('usage: render-page-ab.ts <before checkout> <after checkout> [rounds] [turns]')
  const [a, b] = [await load(before), await load(after)]
  const pages = await pagesOf(a, 40)
  const differing = pages.filter((rows) => !render(a, rows).equals(render(b, rows))).length
  console.log(`${pages.length} pages of 50 rendered by both: ${differing} differ in their bytes`)
  const turns = Number(turnsArg ?? 4)
  const spent: Record<string, number[]> = { [before]: [], [after]: [] }
  for (let turn = 0; turn < turns; turn++) {
    for (const checkout of turn % 2 === 0 ? [before, after] : [after, before]) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, before, after, roundsArg ?? '1000'], { env: { ...process.env, RENDER_CHILD: checkout }, encoding: 'utf8' })
      spent[checkout]!.push(Number(child.stdout.trim().split('\n').at(-1)))
    }
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!
  for (const checkout of [before, after]) console.log(`${checkout}: ${median(spent[checkout]!)} µs a page (median of ${turns} turns: ${spent[checkout]!.join(' ')})`)
}
