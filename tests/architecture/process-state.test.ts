import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// `npm run dev` loads lib/ twice in one process (tsx for /v1, Next's dev bundle for the rest;
// production loads it once, tests/architecture/server-bundle.test.ts), so module-level state
// exists once per copy there. State that must be shared (the database
// pool, the token cache a revocation clears, Redis, totals, the event queue, the response cache)
// lives in processSingleton (lib/process-singleton.ts). Everything else that is mutable at module
// level is listed here with why a copy of its own is harmless; new state must be one or the other.

const perCopyIsHarmless: Record<string, string> = {
  'lib/api/openapi/openapi-document.ts': 'the document, built from code: every copy builds the same',
  'lib/api/openapi/content-openapi-document.ts': "the content API's document and the problem codes it lists, built from code: every copy builds the same",
  'lib/api/rate-limit.ts': 'the limiter objects and the in-memory fallback (with what it admitted that Redis has yet to be told): each copy limits its own door (/v1 or sign-in), and notices by itself that Redis came back without its data (the marker it saw)',
  'lib/api/sliding-window.ts': 'a counter that makes rate-limit log entries unique, tagged per copy',
  'lib/api/redis-take-back.ts': 'the take-backs waiting for Redis to be ready again: each copy sends its own, once',
  'lib/api/reserved-window.ts': 'which clients have the reservation script defined (a second copy defines it again on the shared client), and a counter that makes block tags unique, tagged per copy: blocks of two copies are blocks of two instances in the one Redis log',
  'lib/articles/get-article.ts': 'the single-article reads waiting for this turn of the event loop: each copy batches its own',
  'lib/articles/article-totals.ts': 'whether the Redis-down warning was logged',
  'lib/articles/article-counts.ts': 'a constant: the filters the kept counts answer',
  'lib/articles/three-way-merge.ts': 'a constant: the HTML elements that have no closing tag',
  'lib/events/event-generation.ts': 'whether the Redis-down warning was logged',
  'lib/auth/members.ts': 'the decoy hash that evens sign-in timing',
  'lib/auth/portal-request-actor.ts': 'the session key derived from the secret: every copy derives the same',
  'lib/events/queue-hand-off.ts': 'the batch being handed to the queue: each copy batches its own writes',
  'lib/ids.ts': 'a pool of random bytes for ids',
  'lib/db/prepared-query.ts': 'each connection\'s statement-name suffix: a second copy gives a connection a second suffix and prepares its statements once more under it',
  'lib/server/node-http.ts': 'the security headers made from the environment, memoised',
  'lib/server/host-header.ts': 'the last Host header found valid, memoised: every copy judges a Host alike',
  'lib/json-bytes.ts': 'a scratch buffer answers are written into (and whether it is in use), and member names as JSON writes them, memoised: every copy writes the same bytes',
  'lib/api/text-response.ts': 'header names lower-cased, memoised: every copy lowers a name alike',
  'lib/redis.ts': 'which clients have settled their first connection: the client itself is shared',
  'lib/mail/send-mail.ts': 'the SMTP transporter, rebuilt from the environment',
  'lib/tenancy/tenant-db.ts': 'tenant-scoped Prisma clients over the one shared pool',
  'lib/db/prepared-names.ts': 'prepared statements\' names by their text, memoised: every copy names a text alike',
  'lib/security/secret-box.ts': 'the derived encryption key',
  'lib/signed-cursor.ts': 'the cursor signing key derived from the secret: every copy derives the same',
  'lib/media/storage/media-storage.ts': 'the media store adapter, built from the environment: every copy builds the same (the bytes live in the store, not in the adapter)',
  'lib/webhooks/url-safety.ts': 'the DNS resolver tests replace',
  'lib/config/hot-setting.ts': "settings read from the environment, memoised in production: every copy reads the same environment",
}

function sourceFiles(folder: string): string[] {
  const root = path.resolve(import.meta.dirname, '../..')
  return readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(path.join('lib', 'db', 'generated')))
}

/** Top-level `let`, or a top-level Map/Set/WeakMap that is not declared read-only. */
function moduleState(file: string): string[] {
  const text = readFileSync(path.resolve(import.meta.dirname, '../..', file), 'utf8')
  return [...text.matchAll(/^(?:export )?(?:let [A-Za-z]+|const [A-Za-z]+(?:: (?!Readonly)[^=]+)? = new (?:Map|Set|WeakMap|WeakSet)\b)/gm)].map((match) => match[0])
}

describe('per-process state', () => {
  it('is shared through processSingleton, or listed with why a copy per module graph is harmless', () => {
    const unlisted = sourceFiles('lib').flatMap((file) => (moduleState(file).length > 0 && !perCopyIsHarmless[file.split(path.sep).join('/')] ? [`${file}: ${moduleState(file).join('; ')}`] : []))
    expect(unlisted).toEqual([])
  })

  it('finds module state at all (a broken pattern would pass the rule)', () => {
    expect(moduleState('lib/events/queue-hand-off.ts').length).toBeGreaterThan(0)
  })
})
