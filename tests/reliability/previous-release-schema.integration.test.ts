import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { runPrisma } from '../../scripts/run-prisma.ts'
import { createTestTenant } from '../support/fixtures.ts'
import { databaseUrl, templateDatabaseName, testDatabaseUrl } from '../support/test-env.ts'

// The previous release's instances serving on this release's schema, as they do during a rolling
// deploy between the migration step and the last old instance's replacement.
//
// The light, sound stand-in for "the previous release's build": its data layer. Every query the
// previous release makes through Prisma is generated from its schema.prisma, which
// prisma/previous-release/ keeps (scripts/check-migrations.ts), so a Prisma client generated
// from that file names exactly the tables and columns the old code reads and writes, with the
// old types. The test generates it, and runs it against a database this release's migrations
// made: it writes a newsroom's records the way the old code does (only the columns it knows,
// the database's triggers firing), reads every model with every column it knows, and reads what
// this release's code wrote. What it does not cover: raw SQL in the old lib/ (it names columns of
// the same schema) and behaviour that is not the schema's.

const root = path.resolve(import.meta.dirname, '../..')
const clientDir = path.join(root, '.data', `previous-release-client-${randomBytes(4).toString('hex')}`)
type OldClient = { $disconnect(): Promise<void>; [model: string]: unknown }
type OldModule = { PrismaClient: new (options: { adapter: PrismaPg }) => OldClient }
let OldPrismaClient: OldModule['PrismaClient']
const clients: OldClient[] = []

function oldClient(url = process.env.DATABASE_URL!): OldClient {
  const client = new OldPrismaClient({ adapter: new PrismaPg(new pg.Pool({ connectionString: url, max: 2 }), { disposeExternalPool: true }) })
  clients.push(client)
  return client
}

beforeAll(async () => {
  mkdirSync(clientDir, { recursive: true })
  const schema = readFileSync(path.join(root, 'prisma/previous-release/schema.prisma'), 'utf8').replace(/output\s*=\s*"[^"]*"/, 'output = "./client"')
  writeFileSync(path.join(clientDir, 'schema.prisma'), schema)
  await runPrisma(['generate', '--no-hints', '--schema', path.join(clientDir, 'schema.prisma')])
  OldPrismaClient = ((await import(path.join(clientDir, 'client', 'client.ts'))) as OldModule).PrismaClient
}, 180_000)

const scratch: string[] = []
afterAll(async () => {
  for (const client of clients) await client.$disconnect()
  rmSync(clientDir, { recursive: true, force: true })
  const admin = new pg.Client({ connectionString: testDatabaseUrl })
  await admin.connect()
  for (const name of scratch) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.end()
})

type Delegate = {
  create(args: { data: Record<string, unknown> }): Promise<Record<string, unknown>>
  update(args: { where: Record<string, unknown>; data: Record<string, unknown> }): Promise<Record<string, unknown>>
  findMany(args?: Record<string, unknown>): Promise<Record<string, unknown>[]>
  findUniqueOrThrow(args: { where: Record<string, unknown> }): Promise<Record<string, unknown>>
}
const model = (client: OldClient, name: string) => client[name] as Delegate

/** What the old release writes when an editor starts a newsroom's day: its own columns only. */
async function oldWrites(client: OldClient) {
  const tenantId = createId('ten')
  await model(client, 'tenant').create({ data: { id: tenantId, name: 'Old release', slug: `old-${tenantId.slice(-8).toLowerCase()}`, publicSiteUrl: 'https://old.example' } })
  const userId = createId('usr')
  await model(client, 'user').create({ data: { id: userId, tenantId, email: `${userId}@old.example`, name: 'Old Editor', role: 'editor', passwordHash: 'x' } })
  const departmentId = createId('dep')
  await model(client, 'department').create({ data: { id: departmentId, tenantId, name: 'Politics' } })
  const articleId = createId('art')
  await model(client, 'article').create({ data: { id: articleId, tenantId, headline: 'Written by the old release', lede: 'Lede', body: '<p>Body</p>', departmentId, tags: ['old'], authorId: userId, editedById: userId } })
  await model(client, 'article').update({ where: { id: articleId }, data: { headline: 'Edited by the old release', version: { increment: 1 }, editedById: userId } })
  await model(client, 'articleTransition').create({ data: { id: createId('trn'), tenantId, articleId, fromState: 'draft', toState: 'in_review', actorId: userId, version: 2 } })
  await model(client, 'articleNote').create({ data: { id: createId('not'), tenantId, articleId, authorId: userId, kind: 'comment', body: 'Looks good' } })
  await model(client, 'event').create({ data: { id: createId('evt'), tenantId, kind: 'article.updated', occurredAt: new Date(), data: { article_id: articleId } } })
  await model(client, 'contentKey').create({ data: { id: createId('ckey'), tenantId, name: 'Site', prefix: 'nrc_old', keyHash: randomBytes(32).toString('hex') } })
  await model(client, 'auditEntry').create({ data: { id: createId('aud'), tenantId, actorId: userId, action: 'content_key.created', targetType: 'content_key', targetId: 'x' } })
  return { tenantId, articleId }
}

/** Every model the old release knows, read with every column it knows. */
async function oldReadsEverything(client: OldClient): Promise<string[]> {
  const models = Object.keys(client).filter((key) => !key.startsWith('$') && !key.startsWith('_') && typeof (client[key] as Partial<Delegate>)?.findMany === 'function')
  for (const name of models) await model(client, name).findMany({ take: 3 })
  return models
}

describe("the previous release's data layer on this release's schema", () => {
  it('writes, and reads every model, including what this release wrote', async () => {
    const old = oldClient()
    const { articleId } = await oldWrites(old)
    // This release reads what the old one wrote, with the triggers' revisions.
    const written = await db.article.findUniqueOrThrow({ where: { id: articleId }, include: { revisions: true } })
    expect(written.headline).toBe('Edited by the old release')
    expect(written.revisions.map((revision) => revision.headline).sort()).toEqual(['Edited by the old release', 'Written by the old release'])

    // The old release reads what this one wrote.
    const newsroom = await createTestTenant()
    const article = await createArticle(newsroom.actor('editor'), { headline: 'Written by this release', body: '<p>New</p>', tags: ['new'] })
    const seen = await model(old, 'article').findUniqueOrThrow({ where: { id: article.id } })
    expect(seen).toMatchObject({ headline: 'Written by this release', tags: ['new'], status: 'draft' })

    const models = await oldReadsEverything(old)
    expect(models.length).toBeGreaterThan(20)
  })

  it('fails, as it should, on a schema that contracted what the old release uses', async () => {
    // A database copied from the migrated template, then a migration that breaks the rule.
    const name = `newsroom_contracted_${randomBytes(5).toString('hex')}`
    scratch.push(name)
    const admin = new pg.Client({ connectionString: testDatabaseUrl })
    await admin.connect()
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName}`)
        break
      } catch (error) {
        if (attempt >= 20) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      }
    }
    await admin.end()
    const contracted = new pg.Client({ connectionString: databaseUrl(name) })
    await contracted.connect()
    await contracted.query('ALTER TABLE departments ADD COLUMN code TEXT NOT NULL')
    await contracted.query('ALTER TABLE content_keys DROP COLUMN name')
    await contracted.end()

    const old = oldClient(databaseUrl(name))
    await expect(oldWrites(old)).rejects.toThrow(/department'\).create\(\)[\s\S]*Null constraint violation/)
    await expect(model(old, 'contentKey').findMany()).rejects.toThrow(/name/)
  })
})
