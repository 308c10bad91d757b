import { readdirSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ApiOperationSpec } from '../../lib/api/openapi/api-operation.ts'

const operationsDir = path.resolve(import.meta.dirname, '../../lib/api/operations')

/**
 * Every /v1 operation declared in lib/api/operations/*-operations.ts, found by what the
 * declarations export, so a test built on this list covers a new operation without naming it.
 */
export async function declaredOperations(): Promise<ApiOperationSpec[]> {
  const found = new Map<string, ApiOperationSpec>()
  for (const file of readdirSync(operationsDir).filter((name) => name.endsWith('-operations.ts')).sort()) {
    const exports = (await import(pathToFileURL(path.join(operationsDir, file)).href)) as Record<string, unknown>
    for (const value of Object.values(exports)) {
      if (isOperation(value)) found.set(`${value.method} ${value.path}`, value)
    }
  }
  return [...found.values()]
}

function isOperation(value: unknown): value is ApiOperationSpec {
  if (value === null || typeof value !== 'object') return false
  const candidate = value as Partial<ApiOperationSpec>
  return typeof candidate.method === 'string' && typeof candidate.path === 'string' && candidate.path.startsWith('/v1') && typeof candidate.operationId === 'string' && typeof candidate.scope === 'string'
}

/** The names of a declaration's path parameters, as its path writes them: `{article_id}` → `article_id`. */
export function pathParameters(operation: ApiOperationSpec): string[] {
  return [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)
}

/** The keys an object schema (zod) declares, or none. */
export function declaredKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape
  return shape && typeof shape === 'object' ? Object.keys(shape) : []
}
