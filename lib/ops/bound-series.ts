import type { Counter, Histogram } from 'prom-client'

/**
 * One labelled series of a prom-client counter or histogram, found once and then updated in
 * place. prom-client finds a series by building a string from the labels object on every
 * inc/observe (and its `labels()` children do the same): on a cached GET that, the labels objects
 * and their validation were ~2.5 % of the service's CPU (issue 50's profile).
 *
 * The series' value object is the one prom-client keeps in the metric's `hashMap` and exports
 * when scraped; it is updated as prom-client's own inc/observe would (counter: value += 1;
 * histogram without exemplars: sum, count and the first bucket whose bound is at least the
 * value). Before each update the metric is asked whether that object is still its series under
 * the same key: after a `reset()` or `remove()` (or a prom-client that keeps its series
 * otherwise) the update goes through prom-client's own method and the series is found again.
 */
type SeriesMap = Record<string, unknown>
type Internals = { hashMap: SeriesMap }

export class CounterSeries {
  private key: string | undefined
  private entry: { value: number } | undefined
  constructor(
    private readonly counter: Counter,
    private readonly labels: Record<string, string>,
  ) {}

  inc(): void {
    const map = (this.counter as unknown as Internals).hashMap
    const entry = this.entry
    if (entry !== undefined && map[this.key!] === entry) {
      entry.value += 1
      return
    }
    const { labelHash } = this.counter.inc(this.labels) as unknown as { labelHash: string }
    const found = (this.counter as unknown as Internals).hashMap[labelHash] as { value: number } | undefined
    ;[this.key, this.entry] = found && typeof found.value === 'number' ? [labelHash, found] : [undefined, undefined]
  }
}

type HistogramEntry = { labels: unknown; sum: number; count: number; bucketValues: Record<string, number> }

export class HistogramSeries {
  private key: string | undefined
  private entry: HistogramEntry | undefined
  private readonly bounds: number[]
  private readonly boundKeys: string[]
  constructor(
    private readonly histogram: Histogram,
    private readonly labels: Record<string, string>,
  ) {
    this.bounds = [...(histogram as unknown as { upperBounds: number[] }).upperBounds]
    // The bucket values are kept under each bound as a property name: String(bound).
    this.boundKeys = this.bounds.map(String)
  }

  observe(value: number): void {
    const map = (this.histogram as unknown as Internals).hashMap
    const entry = this.entry
    if (entry !== undefined && map[this.key!] === entry && Number.isFinite(value)) {
      entry.sum += value
      entry.count += 1
      const { bounds } = this
      for (let index = 0; index < bounds.length; index++) {
        if (value <= bounds[index]!) {
          entry.bucketValues[this.boundKeys[index]!]! += 1
          break
        }
      }
      return
    }
    this.histogram.observe(this.labels, value)
    // The series is the one holding this very labels object (prom-client keeps the object it was given).
    const current = (this.histogram as unknown as Internals).hashMap
    this.key = undefined
    this.entry = undefined
    for (const key in current) {
      const candidate = current[key] as HistogramEntry
      if (candidate.labels === this.labels && candidate.bucketValues && this.boundKeys.every((bound) => typeof candidate.bucketValues[bound] === 'number')) {
        this.key = key
        this.entry = candidate
        break
      }
    }
  }
}
