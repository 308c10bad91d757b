import type { ReactNode } from 'react'
import type { oas31 } from 'zod-openapi'
import { isReference, referenceName, schemaAnchor, type Schema } from './openapi-view-model'

/** A schema's type in a few words: `string (date-time) or null`, `array of Article`. */
export function SchemaType({ schema }: { schema: Schema | undefined }) {
  return <>{typeLabel(schema)}</>
}

function typeLabel(schema: Schema | undefined): ReactNode {
  if (!schema) return 'any'
  if (isReference(schema)) {
    const name = referenceName(schema.$ref)
    return <a href={`#${schemaAnchor(name)}`}>{name}</a>
  }
  const variants = schema.anyOf ?? schema.oneOf
  if (variants) return join(variants.map((variant) => typeLabel(variant)))
  if (schema.not && Object.keys(schema.not).length === 0) return 'never'
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
  if (types.length === 0) return schema.properties ? 'object' : 'any'
  return join(
    types.map((type) => {
      if (type === 'array') return <>array of {typeLabel(schema.items)}</>
      if (type === 'string' && schema.format) return `string (${schema.format})`
      return type
    }),
  )
}

function join(parts: ReactNode[]): ReactNode {
  return parts.map((part, index) => (
    <span key={index}>
      {index > 0 && ' or '}
      {part}
    </span>
  ))
}

/** The rules a value must follow, in words: lengths, ranges, allowed values, default. */
export function schemaConstraints(schema: Schema | undefined): string[] {
  if (!schema || isReference(schema)) return []
  const notes: string[] = []
  for (const variant of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    if (isReference(variant) || variant.type === 'null') continue
    notes.push(...ownConstraints(variant))
  }
  return [...new Set(notes)]
}

function ownConstraints(schema: oas31.SchemaObject): string[] {
  const notes: string[] = []
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) notes.push(`${min} to ${max} ${unit}`)
    else if (min !== undefined) notes.push(`at least ${min} ${unit}`)
    else if (max !== undefined) notes.push(`at most ${max} ${unit}`)
  }
  range(schema.minLength, schema.maxLength, 'characters')
  range(schema.minItems, schema.maxItems, 'items')
  if (schema.minimum !== undefined || schema.maximum !== undefined) {
    notes.push(schema.maximum === undefined ? `≥ ${schema.minimum}` : schema.minimum === undefined ? `≤ ${schema.maximum}` : `${schema.minimum} to ${schema.maximum}`)
  }
  if (schema.enum) notes.push(`one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`)
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`)
  return notes
}
