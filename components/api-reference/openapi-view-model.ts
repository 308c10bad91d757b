import type { oas31 } from 'zod-openapi'
import type { ProblemCodeEntry } from '@/lib/problem-codes'

export type Document = oas31.OpenAPIObject
export type Schema = oas31.SchemaObject | oas31.ReferenceObject
export type ApiOperation = oas31.OperationObject & { 'x-required-scope'?: string }

/** An operation of the API, or (`webhook`) a request the service sends to your url. */
export type OperationEntry = { id: string; kind: 'operation' | 'webhook'; method: string; path: string; operation: ApiOperation }
export type TagGroup = { name: string; description?: string; operations: OperationEntry[] }

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const

export function isReference(value: unknown): value is oas31.ReferenceObject {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string'
}

/** The component name of a local reference such as `#/components/schemas/Article`. */
export function referenceName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1)
}

/** Follows a local `#/components/...` reference; the document is the only source. */
export function resolve<T>(document: Document, value: T | oas31.ReferenceObject): T {
  if (!isReference(value)) return value
  const [, , section, name] = value.$ref.split('/')
  const components = document.components as Record<string, Record<string, unknown> | undefined> | undefined
  const target = section && name ? components?.[section]?.[name] : undefined
  if (target === undefined) throw new Error(`Unresolvable reference ${value.$ref}`)
  return resolve(document, target as T | oas31.ReferenceObject)
}

/** Operations and webhooks by tag, in the order of the document's tags, paths and methods. */
export function operationsByTag(document: Document): TagGroup[] {
  const groups = new Map<string, TagGroup>((document.tags ?? []).map((tag) => [tag.name, { name: tag.name, description: tag.description, operations: [] }]))
  const add = (kind: OperationEntry['kind'], items: oas31.PathsObject | undefined) => {
    for (const [path, item] of Object.entries(items ?? {})) {
      for (const method of methods) {
        const operation = item[method] as ApiOperation | undefined
        if (!operation) continue
        const tag = operation.tags?.[0] ?? 'Other'
        if (!groups.has(tag)) groups.set(tag, { name: tag, operations: [] })
        groups.get(tag)!.operations.push({ id: operation.operationId ?? `${kind}-${method}-${path}`, kind, method: method.toUpperCase(), path, operation })
      }
    }
  }
  add('operation', document.paths)
  add('webhook', document.webhooks)
  return [...groups.values()].filter((group) => group.operations.length > 0)
}

export function problemCodes(document: Document): ProblemCodeEntry[] {
  return (document['x-problem-codes'] as ProblemCodeEntry[] | undefined) ?? []
}

/** The operation's description without the scope line, which the reference shows as a badge. */
export function descriptionWithoutScope(description: string | undefined): string {
  return (description ?? '').replace(/^\*\*Required scope:\*\*[^\n]*\n+/, '')
}

export function operationAnchor(id: string): string {
  return `operation-${id}`
}

export function schemaAnchor(name: string): string {
  return `schema-${name}`
}

export function headerAnchor(name: string): string {
  return `header-${name}`
}

export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2)
}
