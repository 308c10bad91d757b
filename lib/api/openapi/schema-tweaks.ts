import type { ZodOpenApiOverride } from 'zod-openapi'

/**
 * Adjustments to how zod schemas render, applied to every schema of the document:
 *
 * - Response objects are left open (no `additionalProperties: false`): responses may gain
 *   fields in /v1, and a client validating against the document must not break when they do.
 *   Request objects stay closed, because unknown request fields really are refused (422).
 * - A field typed `never` exists only to refuse that field with a helpful message (PATCH's
 *   `status`); it is not part of the shape a client sends, so it is dropped from the schema
 *   and its message moves into the object's description.
 * - zod's date-time regex and its ±2^53 integer bounds repeat what `format` and `type` say
 *   and only make the reference harder to read.
 */
export const schemaTweaks: ZodOpenApiOverride = ({ jsonSchema, zodSchema, io }) => {
  const def = zodSchema._zod.def

  if (def.type === 'object') {
    if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties
    dropNeverFields(jsonSchema, def.shape as Record<string, { _zod: { def: ZodDef } }>)
  }
  if (jsonSchema.format === 'date-time') delete jsonSchema.pattern
  if (jsonSchema.type === 'integer') {
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum
  }
}

type ZodDef = { type: string; innerType?: { _zod: { def: ZodDef } } }
type JsonSchema = Parameters<ZodOpenApiOverride>[0]['jsonSchema']

function dropNeverFields(jsonSchema: JsonSchema, shape: Record<string, { _zod: { def: ZodDef } }>): void {
  const properties = jsonSchema.properties as Record<string, { description?: string }> | undefined
  if (!properties) return
  const notes: string[] = []
  for (const [name, field] of Object.entries(shape)) {
    if (!isNever(field._zod.def) || !properties[name]) continue
    notes.push(`\`${name}\` is refused (422).${properties[name].description ? ` ${properties[name].description}` : ''}`)
    delete properties[name]
    if (Array.isArray(jsonSchema.required)) jsonSchema.required = jsonSchema.required.filter((key: string) => key !== name)
  }
  if (notes.length > 0) jsonSchema.description = [jsonSchema.description, ...notes].filter(Boolean).join(' ')
}

function isNever(def: ZodDef): boolean {
  for (let current: ZodDef | undefined = def; current; current = current.innerType?._zod.def) {
    if (current.type === 'never') return true
  }
  return false
}
