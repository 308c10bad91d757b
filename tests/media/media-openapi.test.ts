import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'

// What an integrator (or an IT reviewer) reads of the media operations in the OpenAPI document
// must be what the routes do: PATCH and DELETE /v1/media/{media_id} honour If-Match (412 when the
// image changed), as the articles' operations do, and declare it as they do.

describe('the media operations in the OpenAPI document', () => {
  for (const method of ['patch', 'delete'] as const) {
    it(`${method.toUpperCase()} /v1/media/{media_id} declares the If-Match header its 412 answers to`, () => {
      const operation = buildOpenApiDocument().paths!['/v1/media/{media_id}']![method]!
      const headers = (operation.parameters ?? []).filter((parameter) => 'in' in parameter && parameter.in === 'header').map((parameter) => ('name' in parameter ? parameter.name : ''))
      expect(Object.keys(operation.responses ?? {})).toContain('412')
      expect(headers).toContain('If-Match')
    })
  }
})

// The media store (object storage) not answering is a 503 of its own (lib/media/storage/
// s3-media-store.ts: "The media store … is not answering"); the document's only 503 for these
// operations says the database is unreachable, which sends an operator to the wrong system.
describe('the 503 of the operations that read or write the media store', () => {
  for (const [path, method] of [['/v1/media', 'post'], ['/v1/media/{media_id}/original', 'get']] as const) {
    it(`${method.toUpperCase()} ${path} names the media store among its 503s`, () => {
      const operation = buildOpenApiDocument().paths![path]![method]!
      expect(JSON.stringify(operation.responses?.['503'] ?? {})).toMatch(/media store/i)
    })
  }
})
