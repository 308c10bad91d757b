import { describe, expect, it } from 'vitest'
import { Counter, Histogram, Registry } from 'prom-client'
import { CounterSeries, HistogramSeries } from './bound-series.ts'

function pair() {
  const made = [new Registry(), new Registry()].map((registry) => ({
    registry,
    counter: new Counter({ name: 'c_total', help: 'c', labelNames: ['route', 'method', 'status'] as const, registers: [registry] }),
    histogram: new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['route', 'method'] as const, buckets: [0.005, 0.01, 0.5, 1], registers: [registry] }),
  }))
  return made as [(typeof made)[0], (typeof made)[0]]
}

describe('bound series', () => {
  it('export what prom-client’s own inc and observe do, across reset and remove', async () => {
    const [own, bound] = pair()
    const values = [0.001, 0.005, 0.0051, 0.4, 1, 2, 0, 7.5, 0.01]
    const counters = new Map<string, CounterSeries>()
    const histograms = new Map<string, HistogramSeries>()
    const record = (route: string, method: string, status: number, seconds: number) => {
      own.counter.inc({ route, method, status: String(status) })
      own.histogram.observe({ route, method }, seconds)
      const key = `${route} ${method} ${status}`
      if (!counters.has(key)) counters.set(key, new CounterSeries(bound.counter, { route, method, status: String(status) }))
      counters.get(key)!.inc()
      if (!histograms.has(`${route} ${method}`)) histograms.set(`${route} ${method}`, new HistogramSeries(bound.histogram, { route, method }))
      histograms.get(`${route} ${method}`)!.observe(seconds)
    }
    const same = async () => expect(await bound.registry.metrics()).toBe(await own.registry.metrics())
    for (const [index, seconds] of values.entries()) record('/v1/articles/{id}', index % 3 ? 'GET' : 'POST', index % 2 ? 200 : 404, seconds)
    await same()
    for (const side of [own, bound]) {
      side.counter.reset()
      side.histogram.reset()
    }
    for (const seconds of values) record('/v1/articles', 'GET', 200, seconds)
    await same()
    for (const side of [own, bound]) {
      side.counter.remove({ route: '/v1/articles', method: 'GET', status: '200' })
      side.histogram.remove({ route: '/v1/articles', method: 'GET' })
    }
    for (const seconds of values) record('/v1/articles', 'GET', 200, seconds)
    await same()
    expect(await bound.registry.metrics()).toContain('c_total{route="/v1/articles",method="GET",status="200"} 9')
  })
})
