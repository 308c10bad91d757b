import type { oas31 } from 'zod-openapi'
import { MarkdownText } from './markdown-text'
import { formatJson, headerAnchor, resolve, schemaAnchor, type Document } from './openapi-view-model'
import { SchemaFields } from './schema-fields'
import { schemaConstraints, SchemaType } from './schema-type'
import styles from './api-reference.module.css'

export function SchemasSection({ document }: { document: Document }) {
  const schemas = Object.entries(document.components?.schemas ?? {})
  return (
    <section id="schemas" aria-labelledby="schemas-title">
      <h2 id="schemas-title">Schemas</h2>
      {schemas.map(([name, value]) => {
        const schema = resolve<oas31.SchemaObject>(document, value)
        const constraints = schemaConstraints(schema)
        return (
          <div key={name} id={schemaAnchor(name)} className={styles.schema}>
            <h3>
              <code>{name}</code>
            </h3>
            {schema.description && <MarkdownText text={schema.description} />}
            {schema.properties ? (
              <SchemaFields document={document} schema={schema} />
            ) : (
              <p>
                <SchemaType schema={schema} />
                {constraints.length > 0 && `: ${constraints.join('; ')}`}
              </p>
            )}
            {schema.example !== undefined && (
              <details className={styles.example}>
                <summary>Example</summary>
                <pre>
                  <code>{formatJson(schema.example)}</code>
                </pre>
              </details>
            )}
          </div>
        )
      })}
    </section>
  )
}

export function HeadersSection({ document }: { document: Document }) {
  const headers = Object.entries(document.components?.headers ?? {})
  return (
    <section id="headers" aria-labelledby="headers-title">
      <h2 id="headers-title">Response headers</h2>
      <table className={styles.fields}>
        <thead>
          <tr>
            <th>Header</th>
            <th>Description</th>
            <th>Example</th>
          </tr>
        </thead>
        <tbody>
          {headers.map(([name, value]) => {
            const header = resolve<oas31.HeaderObject>(document, value)
            return (
              <tr key={name} id={headerAnchor(name)}>
                <td>
                  <code>{name}</code>
                </td>
                <td>{header.description && <MarkdownText text={header.description} />}</td>
                <td>{header.example !== undefined && <code>{String(header.example)}</code>}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}
