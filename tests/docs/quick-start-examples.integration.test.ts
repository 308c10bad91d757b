import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import ApiReferencePage from '../../app/docs/api/page.tsx'
import { quickStartExamples } from '../../components/api-reference/quick-start-examples.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { db } from '../../lib/db/client.ts'
import { setHostResolver } from '../../lib/webhooks/url-safety.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// Every example of /docs/api's quick start, run as a reader would run it: the curl ones through
// bash, the client ones through tsx, against the /v1 handlers on 127.0.0.1. An example that no
// longer works fails here before a reader finds out.

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let dir: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_SECRET_KEY: 'quick-start-key', SYNC_SETTLE_MS: '0' })
  // The examples subscribe hooks.example.com; no name resolves here, so it resolves to a public address.
  setHostResolver(async () => [{ address: '93.184.216.34', family: 4 }])
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  dir = mkdtempSync(path.join(tmpdir(), 'quick-start-'))
  const token = await newsroom.token(['articles:read', 'articles:write', 'webhooks:manage', 'events:read'])
  env = { NODE_ENV: 'test', PATH: process.env.PATH, HOME: process.env.HOME, NEWSROOM_URL: server.url, NEWSROOM_TOKEN: token, WEBHOOK_SECRET: 'quick-start-secret-0001' }
})

afterAll(async () => {
  await server.close()
  setHostResolver(undefined)
  rmSync(dir, { recursive: true, force: true })
  vi.unstubAllEnvs()
})

/** An article in review for the publishing example. */
async function articleInReview(): Promise<string> {
  return (await createArticle(newsroom.actor('editor'), { headline: 'Ready to publish', status: 'in-review' })).id
}

async function runCurl(script: string, extra: Record<string, string> = {}) {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...env, ...extra }, timeout: 30_000 })
  return stdout
}

async function runClient(id: string, snippet: string, extra: Record<string, string> = {}) {
  // .mts: an ES module, as a project with "type": "module" reads a .ts file, so top-level await works.
  const file = path.join(dir, `${id}.mts`)
  // Copy-pasted at the repository's root, the import resolves there; here it is made absolute.
  writeFileSync(file, snippet.replace("'./clients/typescript/src/index.ts'", `'${path.join(root, 'clients/typescript/src/index.ts')}'`))
  const { stdout } = await run(tsx, [file], { env: { ...env, ...extra }, cwd: root, timeout: 60_000 })
  return stdout
}

const example = (id: string) => quickStartExamples.find((entry) => entry.id === id)!

describe('the quick start on /docs/api', () => {
  it('shows every example, curl and client, on the page', () => {
    const html = renderToStaticMarkup(createElement(ApiReferencePage))
    const escape = (text: string) => renderToStaticMarkup(createElement('code', null, text))
    expect(quickStartExamples).toHaveLength(5)
    for (const entry of quickStartExamples) {
      expect(html).toContain(`id="quick-start-${entry.id}"`)
      expect(html).toContain(escape(entry.curl))
      expect(html).toContain(escape(entry.client))
    }
  })

  it('lists published articles (curl and client)', async () => {
    const published = JSON.parse(await runCurl(example('list-published').curl))
    expect(published).toMatchObject({ items: expect.any(Array), limit: 10 })
    await runClient('list-published', example('list-published').client)
  })

  it('creates an article (curl and client), each once', async () => {
    const created = JSON.parse(await runCurl(example('create-article').curl))
    expect(created).toMatchObject({ headline: 'Harbour festival returns', status: 'in-review' })
    expect(await runClient('create-article', example('create-article').client)).toMatch(/^art_\S+ in-review$/m)
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id, headline: 'Harbour festival returns' } })).toBe(2)
  })

  it('approves and publishes an article (curl and client)', async () => {
    const viaCurl = await articleInReview()
    const answers = (await runCurl(example('publish-article').curl, { ARTICLE_ID: viaCurl })).trim()
    expect(answers).toContain('"status":"published"')
    const viaClient = await articleInReview()
    expect(await runClient('publish-article', example('publish-article').client, { ARTICLE_ID: viaClient })).toMatch(/^published https:\/\/\S+$/m)
    const states = await db.article.findMany({ where: { id: { in: [viaCurl, viaClient] } }, select: { status: true } })
    expect(states.map((article) => article.status)).toEqual(['published', 'published'])
  })

  it('subscribes a webhook (curl and client)', async () => {
    const subscribed = JSON.parse(await runCurl(example('subscribe-webhook').curl))
    expect(subscribed).toMatchObject({ url: 'https://hooks.example.com/newsroom', events: ['article.published'], status: 'enabled' })
    expect(await runClient('subscribe-webhook', example('subscribe-webhook').client)).toMatch(/^whk_\S+ enabled$/m)
  })

  it('catches up on events (curl and client)', async () => {
    const feed = JSON.parse(await runCurl(example('catch-up-events').curl))
    expect(feed.items.map((event: { event: string }) => event.event)).toContain('article.published')
    const printed = await runClient('catch-up-events', example('catch-up-events').client)
    expect(printed).toContain('article.published')
    expect(printed).toMatch(/^keep \S+$/m)
  })
})
