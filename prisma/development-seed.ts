/**
 * Development data: two newsrooms with an admin, an editor and a writer each, a few
 * departments and ~50 articles in every state. Safe to run twice (it skips existing tenants).
 */
import { buildArticleUrl, slugify } from '../lib/articles/article-address.ts'
import { hashPassword } from '../lib/auth/passwords.ts'
import { db } from '../lib/db/client.ts'
import type { ArticleStatus, Plan, Role } from '../lib/db/generated/enums.ts'
import { createId } from '../lib/ids.ts'

type SeedTenant = { name: string; slug: string; plan: Plan; site: string; domain: string; departments: string[] }

const tenants: SeedTenant[] = [
  { name: 'Daily Planet', slug: 'daily-planet', plan: 'standard', site: 'https://dailyplanet.example', domain: 'dailyplanet.example', departments: ['Politics', 'Business', 'Sport', 'Culture'] },
  { name: 'Metro Herald', slug: 'metro-herald', plan: 'enterprise', site: 'https://metroherald.example', domain: 'metroherald.example', departments: ['City', 'World', 'Science'] },
]

const roles: Role[] = ['admin', 'editor', 'writer']
const statuses: ArticleStatus[] = ['draft', 'in_review', 'approved', 'published', 'archived']
const subjects = ['Council', 'Harbour board', 'University', 'Rail operator', 'Museum', 'Hospital trust', 'Football club', 'Water utility']
const verbs = ['approves', 'delays', 'rejects', 'unveils', 'reviews', 'expands', 'cuts', 'celebrates']
const objects = ['new budget', 'riverside plan', 'night service', 'summer exhibition', 'ward closures', 'stadium deal', 'price rise', 'research centre']

/**
 * The i-th seeded article's headline, different for every i below 64: each round of eight
 * subjects shifts the verb and the object, so "Council approves new budget" is never both a draft
 * and a published story (articles i and i + 8 used to share a headline in different states).
 */
export function seedHeadline(i: number): string {
  const round = Math.floor(i / subjects.length)
  return `${subjects[i % subjects.length]} ${verbs[(i * 3 + round) % verbs.length]} ${objects[(i * 5 + 3 * round) % objects.length]}`
}

/** The development password of each seeded user, printed once the seed has run. */
export function developmentPassword(role: Role): string {
  return process.env.SEED_PASSWORD ?? `newsroom-${role}-dev`
}

async function seedTenant(spec: SeedTenant, index: number): Promise<string[]> {
  const existing = await db.tenant.findUnique({ where: { slug: spec.slug } })
  if (existing) return []
  const tenantId = createId('ten')
  await db.tenant.create({ data: { id: tenantId, name: spec.name, slug: spec.slug, plan: spec.plan, publicSiteUrl: spec.site } })

  const lines: string[] = []
  const users: Record<Role, string> = { admin: '', editor: '', writer: '' }
  for (const role of roles) {
    const id = createId('usr')
    const email = `${role}@${spec.domain}`
    await db.user.create({
      data: { id, tenantId, email, name: `${spec.name} ${role[0]!.toUpperCase()}${role.slice(1)}`, role, passwordHash: await hashPassword(developmentPassword(role)) },
    })
    users[role] = id
    lines.push(`  ${spec.name.padEnd(14)} ${role.padEnd(7)} ${email.padEnd(28)} ${developmentPassword(role)}`)
  }

  const departmentIds: string[] = []
  for (const name of spec.departments) {
    const id = createId('dep')
    await db.department.create({ data: { id, tenantId, name } })
    departmentIds.push(id)
  }

  const now = Date.now()
  const articleCount = index === 0 ? 30 : 20
  for (let i = 0; i < articleCount; i++) {
    const status = statuses[i % statuses.length]!
    const headline = seedHeadline(i)
    const id = createId('art')
    const wasPublished = status === 'published' || (status === 'archived' && i % 2 === 0)
    const publishedAt = wasPublished ? new Date(now - (i + 1) * 3_600_000) : null
    const authorId = i % 3 === 0 ? users.editor : users.writer
    await db.article.create({
      data: {
        id,
        tenantId,
        headline,
        lede: `${headline}: what it means for readers.`,
        body: `<p>${headline}.</p><p>Reporting continues; this is seeded development copy.</p>`,
        departmentId: departmentIds[i % departmentIds.length]!,
        tags: [['local', 'breaking'], ['analysis'], ['local'], ['explainer', 'data']][i % 4]!,
        status,
        authorId,
        publishedAt,
        // A published article's slug is stored (see lib/articles/article-address.ts).
        slug: publishedAt ? slugify(headline) : null,
        url: status === 'published' && publishedAt ? buildArticleUrl(spec.site, id, slugify(headline)) : null,
        createdAt: new Date(now - (i + 2) * 3_600_000),
      },
    })
    const path: ArticleStatus[] =
      status === 'archived' && !wasPublished ? ['draft', 'archived'] : statuses.slice(0, statuses.indexOf(status) + 1)
    for (let step = 1; step < path.length; step++) {
      await db.articleTransition.create({
        data: {
          id: createId('trn'),
          tenantId,
          articleId: id,
          fromState: path[step - 1]!,
          toState: path[step]!,
          actorId: step === 1 ? authorId : users.editor,
          createdAt: new Date(now - (i + 2) * 3_600_000 + step * 60_000),
        },
      })
    }
  }
  return lines
}

export async function seed(): Promise<void> {
  const lines: string[] = []
  for (const [index, spec] of tenants.entries()) lines.push(...(await seedTenant(spec, index)))
  if (lines.length === 0) {
    console.log('Seed: the development newsrooms exist already; nothing to do.')
    return
  }
  console.log('Seed: development sign-ins (change these before anyone else can reach the service):')
  for (const line of lines) console.log(line)
}
