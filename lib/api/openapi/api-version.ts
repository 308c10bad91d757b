import { createHash } from 'node:crypto'
import type { oas31 } from 'zod-openapi'

/**
 * The /v1 document's `info.version`, which the packed client (@newsroom/client) takes as its own.
 * A version that never moves tells an integrator nothing, so it is recorded beside a fingerprint
 * of the operations it describes: lib/api/openapi/api-version.test.ts and `npm run client:check`
 * fail when the operations change and the fingerprint (so the version) was not updated.
 *
 * When they fail: raise `version` (semver: minor for an added operation, parameter, answer or
 * scope; major for one removed or changed incompatibly), set `operations` to the fingerprint the
 * failure prints, then `npm run client:generate && npm run client:pack`.
 *
 * 1.0.0: articles, workflow, webhooks, events, keys. 1.1.0: departments. 1.2.0: media, and departments
 * readable with webhooks:manage. 1.3.0: PATCH /v1/media/{media_id} may answer 409 media_in_use
 * (clearing the alt text of an image a published article shows); If-Match declared on PATCH and
 * DELETE /v1/media/{media_id}.
 */
export const recordedApiVersion = {
  version: '1.3.0',
  operations: 'sha256:321c45e22150944e',
} as const

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const

/**
 * What an integrator's code depends on in each operation, one line each, sorted: method, path,
 * operationId, parameters (where, name, required), request body media types and required-ness,
 * answer statuses with their media types, and the scopes it requires. Descriptions and examples
 * are left out: rewording a page is not a new version.
 */
export function operationLines(paths: oas31.PathsObject): string[] {
  const lines: string[] = []
  for (const [route, item] of Object.entries(paths)) {
    for (const method of methods) {
      const operation = (item as Record<string, oas31.OperationObject | undefined>)[method]
      if (!operation) continue
      const parameters = [...((item as oas31.PathItemObject).parameters ?? []), ...(operation.parameters ?? [])]
        .map((parameter) => ('$ref' in parameter ? parameter.$ref : `${parameter.in}:${parameter.name}${parameter.required ? '!' : ''}`))
        .sort()
      const body = operation.requestBody && !('$ref' in operation.requestBody) ? `${Object.keys(operation.requestBody.content).sort().join('+')}${operation.requestBody.required ? '!' : ''}` : ''
      const answers = Object.entries(operation.responses ?? {})
        .map(([status, response]) => `${status}${'$ref' in response ? `=${response.$ref}` : `:${Object.keys(response.content ?? {}).sort().join('+')}`}`)
        .sort()
      const scopes = (operation.security ?? []).map((requirement) => Object.values(requirement).flat().sort().join('+')).sort()
      lines.push([method.toUpperCase(), route, operation.operationId ?? '', parameters.join(','), body, answers.join(','), scopes.join('|')].join(' '))
    }
  }
  return lines.sort()
}

/** The fingerprint of the operations: `sha256:` and the first 16 hex digits of the hash of operationLines. */
export function operationsFingerprint(paths: oas31.PathsObject): string {
  return `sha256:${createHash('sha256').update(operationLines(paths).join('\n')).digest('hex').slice(0, 16)}`
}

/** Why the recorded version no longer describes the document, or undefined when it does. */
export function staleVersionMessage(paths: oas31.PathsObject): string | undefined {
  const fingerprint = operationsFingerprint(paths)
  if (fingerprint === recordedApiVersion.operations) return undefined
  return (
    `The /v1 operations changed (fingerprint ${fingerprint}; ${recordedApiVersion.version} was recorded with ${recordedApiVersion.operations}). ` +
    `Bump the version in lib/api/openapi/api-version.ts (minor for additions, major for removals or incompatible changes), ` +
    `set operations: '${fingerprint}' there, then run npm run client:generate && npm run client:pack.`
  )
}
