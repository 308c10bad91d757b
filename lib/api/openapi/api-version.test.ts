import { describe, expect, it } from 'vitest'
import { operationLines, operationsFingerprint, recordedApiVersion, staleVersionMessage } from './api-version.ts'
import { buildOpenApiDocument } from './openapi-document.ts'

// The client an integrator installs is versioned as this document: the version must move when
// the operations do, and the failure must say how to move it.
describe("the /v1 document's version", () => {
  it('is the recorded version, recorded with the operations the document has now', () => {
    const document = buildOpenApiDocument()
    expect(document.info.version).toBe(recordedApiVersion.version)
    expect(staleVersionMessage(document.paths!), staleVersionMessage(document.paths!)).toBeUndefined()
  })

  it('notices an operation added, removed, or given another parameter or scope, and says how to bump the version', () => {
    const paths = structuredClone(buildOpenApiDocument().paths!) as Record<string, Record<string, { parameters?: unknown[]; security?: unknown[] }>>
    const before = operationsFingerprint(paths)
    const added = { ...paths, '/v1/widgets': { get: { operationId: 'listWidgets', responses: { 200: { description: 'ok' } } } } }
    expect(operationsFingerprint(added)).not.toBe(before)
    const { ['/v1/departments']: _removed, ...removed } = paths
    expect(operationsFingerprint(removed)).not.toBe(before)
    const widened = structuredClone(paths)
    widened['/v1/departments']!.get!.security = [{ bearerAuth: ['articles:read'] }, { bearerAuth: ['something:else'] }]
    expect(operationsFingerprint(widened)).not.toBe(before)
    const message = staleVersionMessage(added)
    expect(message).toContain('Bump the version in lib/api/openapi/api-version.ts')
    expect(message).toContain(`operations: '${operationsFingerprint(added)}'`)
  })

  it('does not move when only the prose changes', () => {
    const paths = structuredClone(buildOpenApiDocument().paths!) as Record<string, Record<string, { description?: string }>>
    const before = operationLines(paths)
    paths['/v1/departments']!.get!.description = 'Reworded.'
    expect(operationLines(paths)).toEqual(before)
  })
})
