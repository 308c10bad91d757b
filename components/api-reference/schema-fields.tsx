import type { ReactNode } from 'react'
import type { oas31 } from 'zod-openapi'
import { MarkdownText } from './markdown-text'
import { isReference, resolve, type Document, type Schema } from './openapi-view-model'
import { schemaConstraints, SchemaType } from './schema-type'
import styles from './api-reference.module.css'

type FieldRow = { name: string; schema: Schema; required: boolean; description?: string }

/** The fields of an object schema as a table; inline nested objects are flattened as `a.b` and `a[].b`. */
export function SchemaFields({ document, schema }: { document: Document; schema: Schema }) {
  const resolved = resolve<oas31.SchemaObject>(document, schema)
  const rows = fieldRows(resolved, '')
  if (rows.length === 0) return null
  return (
    <table className={styles.fields}>
      <thead>
        <tr>
          <th>Field</th>
          <th>Type</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name}>
            <td>
              <code>{row.name}</code>
              {row.required && <span className={styles.required}> required</span>}
            </td>
            <td>
              <SchemaType schema={row.schema} />
            </td>
            <td>
              <FieldDescription description={row.description} constraints={schemaConstraints(row.schema)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function FieldDescription({ description, constraints }: { description?: string; constraints: string[] }): ReactNode {
  return (
    <>
      {description && <MarkdownText text={description} />}
      {constraints.length > 0 && <p className={styles.constraints}>{constraints.join('; ')}</p>}
    </>
  )
}

function fieldRows(schema: oas31.SchemaObject, prefix: string): FieldRow[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    const name = `${prefix}${key}`
    const row: FieldRow = { name, schema: property, required: required.has(key), description: property.description }
    if (isReference(property)) return [row]
    if (property.properties) return [row, ...fieldRows(property, `${name}.`)]
    const items = property.items
    if (items && !isReference(items) && items.properties) return [row, ...fieldRows(items, `${name}[].`)]
    return [row]
  })
}
