import { assertCan, assertMemberCan, can } from '../auth/permissions.ts'
import { ConflictError, NotFoundError, ValidationError, type FieldError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb, type TenantDb } from '../tenancy/tenant-db.ts'

export type DepartmentSummary = { id: string; name: string; articleCount: number; createdAt: Date }

type Reader = Pick<TenantDb, 'department'>

export async function listDepartments(actor: Actor): Promise<DepartmentSummary[]> {
  assertCan(actor, 'admin')
  return readDepartments(actor)
}

/**
 * The departments as whoever reads articles or manages webhooks sees them (GET /v1/departments): the ids that
 * articles and webhook filters take. Reading articles shows their department_id, so the
 * names behind those ids are no secret from the same reader.
 */
export async function departmentDirectory(actor: Actor): Promise<DepartmentSummary[]> {
  // Whoever manages webhooks needs the ids their department_ids filters take.
  if (!can(actor, 'articles:read')) assertCan(actor, 'webhooks:manage')
  return readDepartments(actor)
}

async function readDepartments(actor: Actor): Promise<DepartmentSummary[]> {
  const rows = await tenantDb(actor.tenant.id).department.findMany({
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    select: { id: true, name: true, createdAt: true, _count: { select: { articles: true } } },
  })
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.createdAt, articleCount: row._count.articles }))
}

/** 409 naming the department that has the name already; the portal shows it beside the name field. */
export class DepartmentNameTakenError extends ConflictError {
  readonly fieldErrors: FieldError[]
  constructor(existingName: string) {
    const message = `A department named “${existingName}” exists already.`
    super('department_name_taken', message, { existing_name: existingName })
    this.fieldErrors = [{ field: 'name', message }]
  }
}

function nameTaken(name: string): DepartmentNameTakenError {
  return new DepartmentNameTakenError(name)
}

/** After the unique index refused a name: the department that has it, as it is spelt. */
async function clashAfterRace(db: Reader, name: string, exceptId?: string): Promise<DepartmentNameTakenError> {
  try {
    await assertNameFree(db, name, exceptId)
  } catch (error) {
    if (error instanceof DepartmentNameTakenError) return error
    throw error
  }
  return nameTaken(name)
}

// "Sport" and "sport" are one department to every reader. Checked first for a clear answer;
// the unique index on (tenant_id, lower(name)) settles concurrent adds.
async function assertNameFree(db: Reader, name: string, exceptId?: string): Promise<void> {
  const clash = await db.department.findFirst({
    where: { name: { equals: name, mode: 'insensitive' }, ...(exceptId && { id: { not: exceptId } }) },
    select: { name: true },
  })
  if (clash) throw nameTaken(clash.name)
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'P2002'
}

/**
 * At most this many departments per newsroom: GET /v1/departments answers them all on one page,
 * and the portal's pickers list them all, so the list must stay one a reader can take in.
 */
export const maxDepartments = 200

export async function addDepartment(actor: Actor, input: { name: string }): Promise<DepartmentSummary> {
  assertMemberCan(actor, 'admin')
  const { name } = input
  const tdb = tenantDb(actor.tenant.id)
  // Counted before the insert: two admins adding the 200th at the same instant may both succeed
  // (201), which the cap tolerates; it bounds the list, it is not an invariant.
  if ((await tdb.department.count()) >= maxDepartments) {
    throw new ValidationError([{ field: 'name', message: `A newsroom has at most ${maxDepartments} departments; remove one first.` }])
  }
  await assertNameFree(tdb, name)
  try {
    const row = await tdb.department.create({ data: { id: createId('dep'), tenantId: actor.tenant.id, name } })
    return { id: row.id, name: row.name, createdAt: row.createdAt, articleCount: 0 }
  } catch (error) {
    if (isUniqueViolation(error)) throw await clashAfterRace(tdb, name)
    throw error
  }
}

/** Renaming keeps the id, so articles and API filters that use it are unaffected. */
export async function renameDepartment(actor: Actor, input: { departmentId: string; name: string }): Promise<DepartmentSummary> {
  assertMemberCan(actor, 'admin')
  const { departmentId, name } = input
  const tdb = tenantDb(actor.tenant.id)
  const existing = await tdb.department.findUnique({ where: { id: departmentId } })
  if (!existing) throw new NotFoundError('department', departmentId)
  await assertNameFree(tdb, name, departmentId)
  try {
    const [row] = await tdb.department.updateManyAndReturn({ where: { id: departmentId }, data: { name } })
    if (!row) throw new NotFoundError('department', departmentId)
    const articleCount = await tdb.article.count({ where: { departmentId } })
    return { id: row.id, name: row.name, createdAt: row.createdAt, articleCount }
  } catch (error) {
    if (isUniqueViolation(error)) throw await clashAfterRace(tdb, name, departmentId)
    throw error
  }
}

function inUse(name: string, count: number): ConflictError {
  const articles = count === 1 ? '1 article uses it' : `${count} articles use it`
  return new ConflictError(
    'department_in_use',
    `“${name}” cannot be removed while ${articles}. Move those articles to another department first.`,
    { article_count: count },
  )
}

/** Removes an unused department; one that articles still use is refused, never emptied silently. */
export async function removeDepartment(actor: Actor, input: { departmentId: string }): Promise<void> {
  assertMemberCan(actor, 'admin')
  const { departmentId } = input
  const tdb = tenantDb(actor.tenant.id)
  const existing = await tdb.department.findUnique({ where: { id: departmentId } })
  if (!existing) throw new NotFoundError('department', departmentId)
  const count = await tdb.article.count({ where: { departmentId } })
  if (count > 0) throw inUse(existing.name, count)
  try {
    await tdb.department.deleteMany({ where: { id: departmentId } })
  } catch (error) {
    // An article was filed under it between the count and the delete: the foreign key refuses.
    if ((error as { code?: string }).code === 'P2003') throw inUse(existing.name, await tdb.article.count({ where: { departmentId } }))
    throw error
  }
}
