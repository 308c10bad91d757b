import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ApiOperationSpec } from '../../lib/api/openapi/api-operation.ts'
import { maxInputNestingDepth } from '../../lib/input-shape.ts'
import { setHostResolver } from '../../lib/webhooks/url-safety.ts'
import { startApiServer } from '../support/api-server.ts'
import { declaredKeys, declaredOperations, pathParameters } from '../support/declared-operations.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { createTestTenant } from '../support/fixtures.ts'
import { rawHttp } from '../support/raw-http.ts'
import { spawnApiServer } from '../support/spawn-api-server.ts'
import { stubEnv } from '../support/stub-env.ts'
import { hostileJsonValues } from '../support/hostile-values.ts'
import { internalTextIn } from '../support/internal-text.ts'
import { refuseConnectionsOffTheMachine } from '../support/no-outbound-connections.ts'

// Every declared /v1 operation (found in lib/api/operations, so a new one is covered without
// being listed here) gets the shapes a careless or hostile client sends: lone surrogates, deep
// nesting with and without Idempotency-Key, huge strings, NUL, invalid UTF-8, wrong content
// types, duplicate keys, numbers JSON allows but nothing stores, bad path ids, bad query
// parameters and bad Host headers. None may be a 5xx or a dropped connection; the shapes the
// issue (28) found as 500s must get their own 4xx. tests/reliability/never-5xx-everywhere
// throws random requests at the same list; this file sends each known shape to each operation.

let server: Awaited<ReturnType<typeof startApiServer>>
let port: number
let token: string
let operations: ApiOperationSpec[]
const realIds: Record<string, string> = {}

let offTheMachine: ReturnType<typeof refuseConnectionsOffTheMachine> | undefined

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: undefined, WEBHOOK_SECRET_KEY: 'fuzz-test-key', MEDIA_FETCH_TIMEOUT_MS: '1500', MEDIA_DIR: path.join(os.tmpdir(), 'newsroom-media-fuzz') })
  // Receiver names resolve to a public address without the network; nothing is delivered.
  // The wire photo's host (POST /v1/media's example source_url) is fetched at once, though: it
  // resolves to loopback, so the upload is refused there and then (422 source_url_refused)
  // instead of connecting out of the machine and waiting for the fetch's time limit each case.
  // Made-up names resolve to a public address so the SSRF rules let them through; the sockets
  // themselves are refused (a closed port), so no request of this file leaves the machine.
  offTheMachine = refuseConnectionsOffTheMachine()
  setHostResolver(async (hostname) => [hostname === 'wire.example.com' ? { address: '127.0.0.1', family: 4 } : { address: '93.184.216.34', family: 4 }])
  operations = await declaredOperations()
  // Writes last, deletes after them: an archived article or deleted webhook still answers, but less of the operation runs.
  const order = { GET: 0, POST: 1, PATCH: 1, PUT: 1, DELETE: 2 }
  operations.sort((a, b) => order[a.method] - order[b.method])
  server = await startApiServer()
  port = Number(new URL(server.url).port)
  const newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['admin'])
  const article = await call('POST', '/v1/articles', JSON.stringify({ headline: 'Fuzz target', tags: ['fuzz'] }))
  realIds.article_id = JSON.parse(article.text).article_id
  await call('PATCH', `/v1/articles/${realIds.article_id}`, JSON.stringify({ headline: 'Fuzz target, revised' }))
  realIds.revision_id = JSON.parse((await call('GET', `/v1/articles/${realIds.article_id}/revisions`)).text).items[0].revision_id
  const webhook = await call('POST', '/v1/webhooks', JSON.stringify({ url: 'https://hooks.example.com/fuzz', events: ['article.published'], secret: 'fuzz-secret-0123456789' }))
  realIds.webhook_id = JSON.parse(webhook.text).webhook_id
  const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).jpeg().toBuffer()
  const form = new FormData()
  form.set('file', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'fuzz.jpg')
  realIds.media_id = JSON.parse(await (await fetch(`${server.url}/v1/media`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${token}` } })).text()).media_id
  expect(Object.values(realIds).every(Boolean), JSON.stringify(realIds)).toBe(true)
  // Every step waits on an answer, none on a clock. The bound is above the 60 s default because
  // loading every operation and route module takes most of it on a loaded machine (measured at
  // load 15 on 2 cores: 35 s for declaredOperations, 36 s more for the server; the upload 6 s,
  // like any other request then); it only stops a hang.
}, 180_000)

afterAll(async () => {
  setHostResolver(undefined)
  offTheMachine?.restore()
  await server?.close()
  vi.unstubAllEnvs()
})

// ---- sending and judging ----------------------------------------------------------------

type Answer = { status: number; header: (name: string) => string | null; text: string }

async function call(method: string, target: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(server.url + target, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    body: method === 'GET' || method === 'HEAD' || body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
    signal: AbortSignal.timeout(15_000),
  })
  const text = await response.text()
  return { status: response.status, header: (name) => response.headers.get(name), text }
}

/** What every answer must be: no 5xx, no internal text (stack, SQL, Prisma), and an error is problem+json that says what happened. */
function problemsWith(answer: Answer): string[] {
  const found: string[] = []
  if (answer.status >= 500) found.push(`answered ${answer.status}`)
  const leaked = internalTextIn(answer.text)
  if (leaked) found.push(`carries internal text (${leaked})`)
  if (!answer.header('x-request-id')?.startsWith('req_')) found.push('no X-Request-Id')
  if (answer.status >= 400) {
    if (answer.header('content-type') !== 'application/problem+json') found.push(`error as ${answer.header('content-type')}`)
    else {
      const problem = JSON.parse(answer.text) as { status?: number; code?: string; detail?: string }
      if (problem.status !== answer.status || !problem.code || !problem.detail) found.push('incomplete problem')
    }
  }
  return found
}

type Case = { name: string; method: string; target: string; body?: string | Buffer; headers?: Record<string, string>; expect?: (answer: Answer) => void }

/** Sends every case, a few at a time, and fails once, listing every case that went wrong. */
async function sendAll(cases: Case[]): Promise<void> {
  const failures: string[] = []
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const sent = cases[next++]!
      const context = `${sent.name}: ${sent.method} ${sent.target.slice(0, 160)}`
      try {
        const answer = await call(sent.method, sent.target, sent.body, sent.headers)
        const found = problemsWith(answer)
        if (found.length === 0 && sent.expect) {
          try {
            sent.expect(answer)
          } catch (error) {
            found.push((error as Error).message.split('\n')[0]!)
          }
        }
        if (found.length > 0) failures.push(`${context} → ${answer.status} ${found.join(', ')} ${answer.text.slice(0, 240)}`)
      } catch (error) {
        // A reset, a refused connection or no answer at all.
        failures.push(`${context} → no answer: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`)
      }
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker))
  expect(failures, `${failures.length} of ${cases.length} cases went wrong:\n${failures.slice(0, 40).join('\n')}`).toEqual([])
}

// ---- what each operation is sent --------------------------------------------------------

/** The operation's path with the given id for each parameter (real ids by default). */
function targetOf(operation: ApiOperationSpec, ids: Record<string, string> = {}): string {
  return pathParameters(operation).reduce((path, name) => path.replace(`{${name}}`, ids[name] ?? realIds[name] ?? `missing_${name}`), operation.path)
}

/** A body the operation documents as valid (its first example), or `{}`. */
function exampleBody(operation: ApiOperationSpec): unknown {
  const example = Object.values(operation.requestBody?.examples ?? {})[0]
  return example?.value ?? {}
}

/** The dotted paths of every value inside a JSON value. */
function leafPaths(value: unknown, path: string[] = []): string[][] {
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((item, index) => leafPaths(item, [...path, String(index)]))
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    return entries.length === 0 ? [path] : entries.flatMap(([key, item]) => leafPaths(item, [...path, key]))
  }
  return [path]
}

const rawMarker = '\u0001raw\u0001'
/** JSON text of `value` with the value at `path` replaced by `raw`, written as it is (`1e400`, `-0`). */
function withRawAt(value: unknown, path: string[], raw: string): string {
  if (path.length === 0) return raw
  const copy = structuredClone(value) as Record<string, unknown>
  let at: Record<string, unknown> = copy
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>
  at[path.at(-1)!] = rawMarker
  // A function, so `$&` or `$'` in the raw text is not read as a replacement pattern.
  return JSON.stringify(copy).replace(JSON.stringify(rawMarker), () => raw)
}


const deep = {
  '5,000 objects': '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000),
  '100,000 arrays': '['.repeat(100_000) + ']'.repeat(100_000),
  [`${maxInputNestingDepth + 1} levels`]: '['.repeat(maxInputNestingDepth + 1) + ']'.repeat(maxInputNestingDepth + 1),
}

const badIds = ['%00', 'art_%00', '%ED%A0%80', '%FF%FE', '%C0%AF', '%', '%ZZ', 'x'.repeat(5_000), '%20', '-1', '1e400', '%E2%80%AE', "'%3B--", '%F0%9F%98%80'.repeat(30)]
const badQueryValues = ['', '-1', '0', '1e400', '-0', '99999999999999999999999', '1.5', 'NaN', '%00', '%ED%A0%80', '%FF', '%', 'x'.repeat(4_000), 'true', '%5B%5D', '2026-13-45T25:61:00Z']
const commonQueryKeys = ['limit', 'offset', 'cursor', 'q', 'status', 'sort', 'tag']

function bodyCases(operation: ApiOperationSpec): Case[] {
  const { method } = operation
  const target = targetOf(operation)
  const base = exampleBody(operation)
  const cases: Case[] = []
  const paths = leafPaths(base)
  for (const path of paths) {
    for (const [name, raw] of Object.entries(hostileJsonValues)) cases.push({ name: `${name} at ${path.join('.') || '(body)'}`, method, target, body: withRawAt(base, path, raw) })
  }
  const text = JSON.stringify(base)
  const firstKey = paths[0]?.[0]
  if (firstKey !== undefined && text.startsWith('{') && text.length > 2) {
    cases.push({ name: 'duplicate keys', method, target, body: `${text.slice(0, -1)},${JSON.stringify(firstKey)}:"\\ud800",${JSON.stringify(firstKey)}:null}` })
  }
  const bytes = Buffer.from(text, 'utf8')
  const quoteAt = bytes.indexOf(0x22, bytes.indexOf(0x3a)) // the first string value
  for (const [name, invalid] of Object.entries({ 'invalid UTF-8': [0xff, 0xfe], 'UTF-8 surrogate': [0xed, 0xa0, 0x80], 'overlong UTF-8': [0xc0, 0xaf], 'cut UTF-8': [0xe2, 0x82] })) {
    cases.push({ name, method, target, body: quoteAt > 0 ? Buffer.concat([bytes.subarray(0, quoteAt + 1), Buffer.from(invalid), bytes.subarray(quoteAt + 1)]) : Buffer.from(invalid) })
  }
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/xml', '']) {
    cases.push({ name: `Content-Type '${contentType}'`, method, target, body: text, headers: { 'Content-Type': contentType } })
  }
  cases.push(
    { name: 'no body', method, target },
    { name: 'body not JSON', method, target, body: '{"headline": ' },
    { name: 'NUL bytes as the body', method, target, body: Buffer.from([0, 0, 0]) },
    { name: 'a JSON string as the body', method, target, body: '"\\ud800"' },
    { name: 'over 1 MiB', method, target, body: `{"headline":"${'x'.repeat(1_100_000)}"}` },
  )
  return cases
}

function everyOperationCases(operation: ApiOperationSpec): Case[] {
  const { method } = operation
  const cases: Case[] = []
  for (const name of pathParameters(operation)) {
    for (const id of badIds) cases.push({ name: `bad ${name}`, method, target: targetOf(operation, { [name]: id }) })
  }
  const target = targetOf(operation)
  const keys = [...new Set([...declaredKeys(operation.query), ...commonQueryKeys])]
  for (const key of keys) {
    for (const value of badQueryValues) cases.push({ name: `query ${key}=${value.slice(0, 20)}`, method, target: `${target}?${key}=${value}` })
  }
  cases.push(
    { name: 'repeated query keys', method, target: `${target}?${keys.map((key) => `${key}=1&${key}=x`).join('&')}` },
    { name: 'raw query junk', method, target: `${target}?%%%&=&&==&%00=%00&a[b]=c&__proto__=1&constructor[prototype]=1` },
  )
  // Deep bodies, with and without Idempotency-Key, on every method that takes a body.
  if (method !== 'GET' && method !== 'DELETE') {
    for (const [name, body] of Object.entries(deep)) {
      for (const key of [undefined, `fuzz-${crypto.randomUUID()}`]) {
        cases.push({
          name: `${name}${key ? ' with Idempotency-Key' : ''}`,
          method,
          target,
          body,
          headers: key ? { 'Idempotency-Key': key } : {},
          expect: operation.body ? expectProblem(422, 'nesting_too_deep') : undefined,
        })
      }
    }
  }
  return cases
}

function expectProblem(status: number, code: string) {
  return (answer: Answer) => {
    expect(answer.status).toBe(status)
    expect(JSON.parse(answer.text).code).toBe(code)
  }
}

// ---- the properties ---------------------------------------------------------------------

describe('fuzzing every declared /v1 operation', () => {
  it('finds the operations the reference documents, writes and deletes included', () => {
    expect(operations.length).toBeGreaterThanOrEqual(17)
    expect(new Set(operations.map((operation) => operation.method))).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']))
  })

  it('never answers 5xx or drops the connection, whatever the body, path id or query', async () => {
    const cases = operations.flatMap((operation) => [...(operation.body ? bodyCases(operation) : []), ...everyOperationCases(operation)])
    expect(cases.length).toBeGreaterThan(1_000)
    await sendAll(cases)
  }, 120_000)

  it('refuses a lone surrogate with a 422 naming its field, in values, keys and nested fields, on every operation with a body', async () => {
    const cases: Case[] = []
    for (const operation of operations.filter((candidate) => candidate.body)) {
      const { method } = operation
      const target = targetOf(operation)
      const field = (name: string) => (answer: Answer) => {
        expect(answer.status).toBe(422)
        const problem = JSON.parse(answer.text) as { code: string; errors: { field: string; message: string }[] }
        expect(problem.code).toBe('validation_failed')
        expect(problem.errors).toContainEqual({ field: name, message: expect.stringMatching(/lone UTF-16 surrogate \(\\ud[89a-f][0-9a-f]{2}\); send valid Unicode/) })
        // The answer is valid Unicode itself: a key is named with its surrogate escaped.
        expect(problem.errors.every((error) => error.field.isWellFormed() && error.message.isWellFormed())).toBe(true)
      }
      cases.push(
        { name: 'surrogate in headline', method, target, body: '{"headline":"\\ud800"}', expect: field('headline') },
        { name: 'surrogate in a key', method, target, body: '{"he\\udc00adline":"x"}', expect: field('he\\udc00adline') },
        { name: 'surrogate nested', method, target, body: '{"articles":[{"headline":"ok"},{"tags":["a","x\\udbff"]}]}', expect: field('articles.1.tags.1') },
      )
      // In the operation's own valid body too: the field it takes, where the value would be stored.
      for (const path of leafPaths(exampleBody(operation)).filter((candidate) => candidate.length > 0)) {
        cases.push({ name: `surrogate in ${path.join('.')}`, method, target, body: withRawAt(exampleBody(operation), path, '"\\ud83d"'), expect: field(path.join('.')) })
      }
    }
    await sendAll(cases)
  }, 60_000)

  it(`refuses nesting deeper than ${maxInputNestingDepth} before the idempotency fingerprint, and takes it up to there`, async () => {
    const create = operations.find((operation) => operation.operationId === 'createArticle')!
    const atLimit = JSON.stringify({ headline: 'Nested tags', tags: ['x'], lede: null }).replace('["x"]', '['.repeat(maxInputNestingDepth - 1) + ']'.repeat(maxInputNestingDepth - 1))
    const key = `fuzz-${crypto.randomUUID()}`
    await sendAll([
      // At the limit, the schema judges it (tags must be strings).
      { name: 'at the limit', method: 'POST', target: create.path, body: atLimit, headers: { 'Idempotency-Key': key }, expect: expectProblem(422, 'validation_failed') },
      { name: 'one deeper', method: 'POST', target: create.path, body: atLimit.replace('[[', '[[['), headers: { 'Idempotency-Key': `${key}-2` }, expect: expectProblem(422, 'nesting_too_deep') },
    ])
    // The key of a refused body is not spent: the same key with a good body runs.
    const refused = await call('POST', '/v1/articles', deep['5,000 objects'], { 'Idempotency-Key': `${key}-3` })
    expect(refused.status).toBe(422)
    const retried = await call('POST', '/v1/articles', JSON.stringify({ headline: 'Flattened' }), { 'Idempotency-Key': `${key}-3` })
    expect(retried.status).toBe(201)
  })

  it('answers a bad Host header with a 400 problem naming it, on every operation', async () => {
    const failures: string[] = []
    for (const operation of operations) {
      for (const host of ['a b', '[', '%', 'x:99999', '', 'x:0', 'a/b', 'é.example', '[::1', 'host:port']) {
        const target = targetOf(operation)
        const request = `${operation.method} ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
        const answer = await rawHttp(port, Buffer.from(request, 'latin1'), { timeoutMs: 5_000 }).catch((error: Error) => ({ status: 0, headers: {} as Record<string, string>, body: error.message }))
        const problem = answer.headers['content-type'] === 'application/problem+json' ? (JSON.parse(answer.body) as { code?: string; detail?: string }) : {}
        if (answer.status !== 400 || (answer.headers['x-request-id'] && problem.code !== 'invalid_host')) {
          failures.push(`${operation.method} ${target} Host '${host}' → ${answer.status} ${answer.body.slice(0, 200)}`)
        }
      }
    }
    expect(failures, failures.join('\n')).toEqual([])
    // A good Host still works, with or without a port.
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, 'api.example.com', '[::1]:8080']) {
      const answer = await rawHttp(port, `GET /v1/articles?limit=1 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`)
      expect(answer.status, host).toBe(200)
    }
  })
})

describe('fuzzing the public content API', () => {
  it('never answers 5xx or drops the connection, whatever the key, path or query', async () => {
    const { createContentKey } = await import('../../lib/content/content-keys.ts')
    const { getContentArticleOperation, listContentArticlesOperation } = await import('../../lib/api/operations/content-operations.ts')
    const newsroom = await createTestTenant()
    const { key } = await createContentKey(newsroom.actor('admin'), 'Fuzzed site')
    const cases: Case[] = []
    // The key in the query, raw as a client may send it; in a header, what a header can carry.
    for (const keyValue of [key, '', '%00', '%ED%A0%80', '%FF', `nrc_${'x'.repeat(5_000)}`, `${key}%00`]) {
      cases.push({ name: `key=${keyValue.slice(0, 12)}`, method: 'GET', target: `/content/v1/articles?key=${keyValue}` })
    }
    for (const keyValue of [key, 'not-a-key', `nrc_${'x'.repeat(5_000)}`, `${key}\u00ff`, '"', `${key}, ${key}`]) {
      cases.push({ name: `X-Content-Key ${keyValue.slice(0, 12)}`, method: 'GET', target: '/content/v1/articles', headers: { 'X-Content-Key': keyValue } })
    }
    for (const operation of [listContentArticlesOperation, getContentArticleOperation]) {
      const target = operation.path.replace('{article}', realIds.article_id!)
      const keys = [...new Set([...declaredKeys(operation.query).filter((name) => name !== 'key'), ...commonQueryKeys])]
      for (const name of keys) {
        for (const value of badQueryValues) cases.push({ name: `query ${name}=${value.slice(0, 20)}`, method: 'GET', target: `${target}?key=${key}&${name}=${value}` })
      }
      cases.push(
        { name: 'repeated query keys', method: 'GET', target: `${target}?key=${key}&${keys.map((name) => `${name}=1&${name}=x`).join('&')}` },
        { name: 'raw query junk', method: 'GET', target: `${target}?key=${key}&%%%&=&&==&%00=%00&a[b]=c&__proto__=1&constructor[prototype]=1` },
      )
    }
    for (const id of badIds) cases.push({ name: 'bad article', method: 'GET', target: `/content/v1/articles/${id}?key=${key}` })
    await sendAll(cases)
  })
})

describe('random requests to every declared operation', () => {
  const nastyString = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('', ' ', '\u0000', '\ud800', 'null', '-1', '1e309', 'NaN', '9'.repeat(40), '2026-13-45T25:61:00Z', '<script>', "'; DROP TABLE articles; --", 'draft', 'in-review', 'published'),
  )

  it('a query of its own keys and nasty values is answered 200, or 404 or 422 saying why', async () => {
    const listing = operations.filter((operation) => operation.method === 'GET' && operation.query)
    await fc.assert(
      // By operationId, so a counterexample reads as the operation rather than its schemas.
      fc.asyncProperty(fc.constantFrom(...listing.map((operation) => operation.operationId)).map((id) => listing.find((operation) => operation.operationId === id)!), fc.array(fc.tuple(fc.oneof(fc.constantFrom(...commonQueryKeys), fc.string({ maxLength: 8 })), nastyString), { maxLength: 5 }), async (operation, pairs) => {
        const keys = declaredKeys(operation.query)
        const params = new URLSearchParams(pairs.map(([key, value], index) => [keys.length > 0 && index % 2 === 0 ? keys[key.length % keys.length]! : key, value]))
        const answer = await call('GET', `${targetOf(operation)}?${params}`)
        const context = `${operation.path}?${params} → ${answer.status} ${answer.text.slice(0, 300)}`
        expect(problemsWith(answer), context).toEqual([])
        expect([200, 404, 422], context).toContain(answer.status)
      }),
      { numRuns: 150 },
    )
  }, 60_000)

  it('a body of its own fields with any values is never a 5xx', async () => {
    const writing = operations.filter((operation) => operation.body)
    const value = fc.oneof(nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nastyString, { maxLength: 4 }), fc.dictionary(nastyString, nastyString, { maxKeys: 3 }))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writing.map((operation) => operation.operationId)).map((id) => writing.find((operation) => operation.operationId === id)!), fc.nat(), fc.array(value, { maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), async (operation, pick, values, json) => {
        // The operation's example with some of its values replaced, or any JSON at all.
        const paths = leafPaths(exampleBody(operation))
        let body: unknown = exampleBody(operation)
        values.forEach((replacement, index) => (body = JSON.parse(withRawAt(body, paths[(pick + index) % paths.length]!, JSON.stringify(replacement) ?? 'null'))))
        const sent = pick % 5 === 0 ? JSON.stringify(json) : JSON.stringify(body)
        const answer = await call(operation.method, targetOf(operation), sent)
        expect(problemsWith(answer), `${operation.method} ${operation.path} ${sent.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`).toEqual([])
      }),
      { numRuns: 200 },
    )
  }, 60_000)
})

describe('on the embedded store (PGlite)', () => {
  let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>> | undefined
  let spawned: Awaited<ReturnType<typeof spawnApiServer>> | undefined
  afterAll(async () => {
    await spawned?.stop()
    await embedded?.stop()
  })

  it('refuses a lone surrogate with a 422 on its field, in a create, a PATCH and a bulk import', async () => {
    embedded = await startMigratedEmbeddedDatabase()
    spawned = await spawnApiServer(embedded.url, { tenant: true })
    const send = async (method: string, path: string, body: string) => {
      const response = await fetch(spawned!.url + path, { method, headers: { Authorization: `Bearer ${spawned!.tenant!.token}`, 'Content-Type': 'application/json' }, body })
      return { status: response.status, body: (await response.json()) as { code?: string; errors?: { field: string }[]; article_id?: string } }
    }
    const created = await send('POST', '/v1/articles', '{"headline":"Fine"}')
    expect(created.status).toBe(201)
    const cases: [string, string, string, string][] = [
      ['POST', '/v1/articles', '{"headline":"\\ud800"}', 'headline'],
      ['PATCH', `/v1/articles/${created.body.article_id}`, '{"lede":"a\\udfff"}', 'lede'],
      ['POST', '/v1/articles/bulk', '{"articles":[{"headline":"ok"},{"headline":"x","tags":["\\ud83d"]}]}', 'articles.1.tags.0'],
    ]
    for (const [method, path, body, field] of cases) {
      const answer = await send(method, path, body)
      expect(answer.status, `${method} ${path} ${body}`).toBe(422)
      expect(answer.body.code).toBe('validation_failed')
      expect(answer.body.errors?.map((error) => error.field)).toContain(field)
    }
    // It migrates an embedded database and starts a server first: 60 s ran out on a machine at load 11.
  }, 180_000)
})
