import { describe, expect, it } from 'vitest'
import { gcSecondsIn, gcShare } from '../../bench/gc-time.ts'

describe('the collector time a bench row reads from /metrics', () => {
  it('sums the pauses of every kind and ignores buckets, counts and other metrics', () => {
    const exposition = [
      '# HELP nodejs_gc_duration_seconds Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      '# TYPE nodejs_gc_duration_seconds histogram',
      'nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 1200',
      'nodejs_gc_duration_seconds_sum{kind="minor"} 1.25',
      'nodejs_gc_duration_seconds_count{kind="minor"} 1500',
      'nodejs_gc_duration_seconds_sum{kind="major"} 0.5',
      'nodejs_gc_duration_seconds_sum{kind="incremental"} 0.125',
      'process_cpu_seconds_total 42',
    ].join('\n')
    expect(gcSecondsIn(exposition)).toBeCloseTo(1.875, 9)
  })

  it('gives the share of the row’s CPU time, and nothing for a row that used none', () => {
    // 2 s of collection in a row of 10,000 requests at 1,000 µs each (10 s of CPU): a fifth.
    expect(gcShare(3, 5, 1_000, 10_000)).toBeCloseTo(0.2, 9)
    expect(gcShare(3, 3, 0, 0)).toBeUndefined()
  })
})
