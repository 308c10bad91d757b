import type { FieldError } from '../errors.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import { bodyFigureIds } from '../media/article-images.ts'

/** The library images an article's write names: its featured image and its (sanitised) body's figures. */
export function mediaReferences(input: { featured_media_id?: string | null; body?: string | null }): string[] {
  return [...(input.featured_media_id ? [input.featured_media_id] : []), ...bodyFigureIds(input.body)]
}

/**
 * Checks that departments and authors named by articles belong to the tenant, with one
 * query per kind however many articles are checked (bulk imports check 500 at once).
 */
export async function findForeignReferences(
  tdb: TenantDb,
  refs: { departmentIds: Iterable<string>; authorIds: Iterable<string>; mediaIds?: Iterable<string> },
): Promise<{ unknownDepartments: Set<string>; unknownAuthors: Set<string>; unknownMedia: Set<string> }> {
  const departmentIds = [...new Set(refs.departmentIds)]
  const authorIds = [...new Set(refs.authorIds)]
  const mediaIds = [...new Set(refs.mediaIds ?? [])]
  const [departments, authors, media] = await Promise.all([
    departmentIds.length ? tdb.department.findMany({ where: { id: { in: departmentIds } }, select: { id: true } }) : [],
    authorIds.length ? tdb.user.findMany({ where: { id: { in: authorIds }, active: true }, select: { id: true } }) : [],
    mediaIds.length ? tdb.media.findMany({ where: { id: { in: mediaIds } }, select: { id: true } }) : [],
  ])
  const knownDepartments = new Set(departments.map((row) => row.id))
  const knownAuthors = new Set(authors.map((row) => row.id))
  const knownMedia = new Set(media.map((row) => row.id))
  return {
    unknownDepartments: new Set(departmentIds.filter((id) => !knownDepartments.has(id))),
    unknownAuthors: new Set(authorIds.filter((id) => !knownAuthors.has(id))),
    unknownMedia: new Set(mediaIds.filter((id) => !knownMedia.has(id))),
  }
}

export function referenceErrors(
  input: { department_id?: string | null; author_id?: string; featured_media_id?: string | null; body?: string | null },
  unknown: { unknownDepartments: Set<string>; unknownAuthors: Set<string>; unknownMedia?: Set<string> },
): FieldError[] {
  const errors: FieldError[] = []
  if (input.featured_media_id && unknown.unknownMedia?.has(input.featured_media_id)) {
    errors.push({ field: 'featured_media_id', message: `No media '${input.featured_media_id}' in this newsroom's library (it was deleted, or never uploaded). Choose another library image as the featured image, or remove it.` })
  }
  // A body figure is a library reference as the featured image is: another newsroom's id (or a
  // deleted one) is refused on write, not left for the content API to drop silently.
  const foreignFigures = bodyFigureIds(input.body).filter((id) => unknown.unknownMedia?.has(id))
  if (foreignFigures.length > 0) {
    errors.push({ field: 'body', message: `The body shows images that are not in this newsroom's library (deleted, or never uploaded): ${foreignFigures.join(', ')}. Remove them from the body, or use images that are in the library.` })
  }
  if (input.department_id && unknown.unknownDepartments.has(input.department_id)) {
    errors.push({ field: 'department_id', message: `No department '${input.department_id}' in this newsroom.` })
  }
  if (input.author_id && unknown.unknownAuthors.has(input.author_id)) {
    errors.push({ field: 'author_id', message: `No active user '${input.author_id}' in this newsroom.` })
  }
  return errors
}

export function uniqueTags(tags: readonly string[] | undefined): string[] {
  // One tag whatever its case: the first spelling sent is kept, in the order sent.
  const byFolded = new Map<string, string>()
  for (const tag of tags ?? []) {
    const trimmed = tag.trim()
    const folded = trimmed.toLowerCase()
    if (!byFolded.has(folded)) byFolded.set(folded, trimmed)
  }
  return [...byFolded.values()]
}
