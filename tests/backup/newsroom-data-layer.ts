/**
 * The service's data layer as the restore test drives it, in a process of its own on the
 * database DATABASE_URL names (the primary, or the copy a restore made):
 *   tsx tests/backup/newsroom-data-layer.ts write <batch> <state.json>   writes a batch through lib/
 *   tsx tests/backup/newsroom-data-layer.ts read <state.json>            prints what the newsroom holds
 * Writes go through the domain functions (a newsroom, articles and their edits with the
 * revisions and events they commit, content keys and their audit entries), as the service makes
 * them; the read is every article, revision, event, key, audit entry and member of the newsroom.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { createArticle } from '../../lib/articles/create-article.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { createContentKey, revokeContentKey } from '../../lib/content/content-keys.ts'
import { db } from '../../lib/db/client.ts'
import { parseInput } from '../../lib/parse-input.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import { createNewsroom } from '../../lib/tenancy/create-newsroom.ts'
import { createNewsroomSchema } from '../../lib/tenancy/newsroom-schemas.ts'

type State = { slug: string; tenantId?: string; adminId?: string; articles: string[]; keys: string[] }

async function actorOf(state: State): Promise<Actor> {
  const tenant = await db.tenant.findUniqueOrThrow({ where: { id: state.tenantId! }, select: { id: true, slug: true, name: true, plan: true, publicSiteUrl: true } })
  return { tenant, user: { id: state.adminId!, role: 'admin' } }
}

async function write(batch: number, state: State): Promise<void> {
  if (batch === 1) {
    const { tenant, admin } = await createNewsroom(parseInput(createNewsroomSchema, { slug: state.slug, name: 'Restored Gazette', publicSiteUrl: 'https://gazette.example', adminEmail: `admin@${state.slug}.example`, adminName: 'Admin' }))
    state.tenantId = tenant.id
    state.adminId = admin.id
  }
  const actor = await actorOf(state)
  for (let i = 0; i < 3; i++) {
    const article = await createArticle(actor, { headline: `Batch ${batch} story ${i}`, lede: `Lede ${batch}.${i}`, body: `<p>Batch ${batch}, story ${i}.</p>`, tags: [`batch-${batch}`] })
    state.articles.push(article.id)
  }
  // An edit of an earlier batch's article: the restore must have the version as of its target.
  const earlier = state.articles[Math.max(0, state.articles.length - 4)]!
  await updateArticle(actor, earlier, { headline: `Edited in batch ${batch}` })
  state.keys.push((await createContentKey(actor, `Key of batch ${batch}`)).summary.id)
  if (batch >= 3) await revokeContentKey(actor, state.keys[0]!)
}

async function read(state: State) {
  const where = { tenantId: state.tenantId! }
  return {
    articles: await db.article.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, headline: true, lede: true, body: true, tags: true, status: true, version: true, updatedAt: true } }),
    revisions: await db.articleRevision.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, articleId: true, number: true, version: true, headline: true } }),
    events: await db.event.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, kind: true, occurredAt: true } }),
    contentKeys: await db.contentKey.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, name: true, keyHash: true, revokedAt: true } }),
    auditEntries: await db.auditEntry.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, action: true, targetId: true } }),
    users: await db.user.findMany({ where, orderBy: { id: 'asc' }, select: { id: true, email: true, passwordHash: true } }),
  }
}

const [command, a, b] = process.argv.slice(2)
try {
  if (command === 'write') {
    const state: State = existsSync(b!) ? JSON.parse(readFileSync(b!, 'utf8')) : { slug: `gazette-${Date.now().toString(36)}`, articles: [], keys: [] }
    await write(Number(a), state)
    writeFileSync(b!, JSON.stringify(state))
  } else if (command === 'read') {
    process.stdout.write(JSON.stringify(await read(JSON.parse(readFileSync(a!, 'utf8')) as State)))
  } else throw new Error('usage: write <batch> <state.json> | read <state.json>')
} finally {
  await db.$disconnect()
}
