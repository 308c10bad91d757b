import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureDebianPackages } from '../../scripts/debian-packages.ts'

// The operator's alert rules (deploy/prometheus): valid for Prometheus (`promtool check rules`),
// behaving as their unit tests say (`promtool test rules`), and naming only metrics the service
// really exports, so no alert waits forever on a series that never exists.

const root = path.resolve(import.meta.dirname, '../..')
const rulesDir = path.join(root, 'deploy/prometheus')

beforeAll(() => ensureDebianPackages([['promtool', 'prometheus']]), 600_000)

function promtool(...args: string[]) {
  const result = spawnSync('promtool', args, { cwd: rulesDir, encoding: 'utf8' })
  return { code: result.status, output: `${result.stdout}${result.stderr}` }
}

describe('the Prometheus alert rules', () => {
  it('pass promtool check rules', () => {
    const { code, output } = promtool('check', 'rules', 'newsroom-alerts.yml')
    expect(output).toMatch(/SUCCESS: \d+ rules found/)
    expect(code).toBe(0)
  })

  it('pass their promtool unit tests (5xx rate, outbox age, fallbacks by reason, Redis away, failover)', () => {
    const { code, output } = promtool('test', 'rules', 'newsroom-alerts.test.yml')
    expect(output).toContain('SUCCESS')
    expect(code).toBe(0)
  })

  it('use only metrics the service exports, or Patroni and Prometheus do', () => {
    const rules = readFileSync(path.join(rulesDir, 'newsroom-alerts.yml'), 'utf8')
    const used = new Set([...rules.matchAll(/\b(newsroom_[a-z_]+)/g)].map((match) => match[1]!.replace(/_(bucket|sum|count)$/, '')))
    const exported = readFileSync(path.join(root, 'lib/ops/metrics.ts'), 'utf8')
    const declared = new Set([...exported.matchAll(/name: '(newsroom_[a-z_]+)'/g)].map((match) => match[1]!))
    expect([...used].filter((name) => !declared.has(name))).toEqual([])
    for (const needed of ['newsroom_api_requests_total', 'newsroom_replica_lag_seconds', 'newsroom_replica_fallback_reads_total', 'newsroom_outbox_waiting_events', 'newsroom_outbox_oldest_waiting_seconds', 'newsroom_content_purge_failures_total', 'newsroom_webhook_subscriptions_disabled_total', 'newsroom_redis_up']) {
      expect(used).toContain(needed)
    }
    expect(rules).toContain('patroni_postgres_timeline')
  })

  it('are refused by promtool when broken, so the check can fail', () => {
    const broken = spawnSync('sh', ['-c', 'f=$(mktemp --suffix=.yml); printf "groups:\\n  - name: x\\n    rules:\\n      - alert: Broken\\n        expr: sum(rate(newsroom_api_requests_total[5m]) > \\n" > $f; promtool check rules $f; code=$?; rm -f $f; exit $code'], { encoding: 'utf8' })
    expect(broken.status).not.toBe(0)
    expect(execFileSync('promtool', ['--version'], { encoding: 'utf8' })).toContain('promtool')
  })
})
