import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatReport, type Summary } from '../../bench/report.ts'

// A committed run at 100,000 and 1,000,000 articles, as the bench wrote it.
const committed = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../bench/results/2026-12-01-05-22.json'), 'utf8')) as Summary

describe("the bench's report of a run at two sizes", () => {
  it("gives each service row's collector share beside its CPU", () => {
    const report = formatReport(committed)
    const coldList = report.split('\n').find((line) => line.startsWith('| GET /v1/articles?limit=50 (cache cold: a new query each time) | service'))
    expect(coldList).toMatch(/CPU 3403 \/ 1714, GC 6\.7 %.*CPU 4767 \/ 2764, GC 8\.2 %/)
  })

  it("says the request log's and open editors' costs come from the first size when the larger one has none", () => {
    const [small, large] = committed.bySize!
    const { requestLogCost: _log, editorAwareness: _editors, editorAwarenessHttp: _http, ...largeWithout } = large!
    const report = formatReport({ ...committed, bySize: [small!, largeWithout] })
    const atLarge = report.slice(report.indexOf('## Other figures at 1,000,000 articles'))
    expect(atLarge).toContain("The request log's and the open editors' costs were measured at 100,000 articles only")
    expect(atLarge).not.toContain('Request log (GET')
    expect(report.slice(0, report.indexOf('## Other figures at 1,000,000 articles'))).toContain('Request log (GET')
  })
})
