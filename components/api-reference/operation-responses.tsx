import type { oas31 } from 'zod-openapi'
import { ExampleList } from './example-list'
import { MarkdownText } from './markdown-text'
import { headerAnchor, resolve, type Document } from './openapi-view-model'
import { SchemaType } from './schema-type'
import styles from './api-reference.module.css'

export function OperationResponses({ document, responses }: { document: Document; responses: oas31.ResponsesObject | undefined }) {
  return (
    <>
      <h4>Responses</h4>
      {Object.entries(responses ?? {}).map(([status, value]) => {
        const response = resolve<oas31.ResponseObject>(document, value as oas31.ResponseObject | oas31.ReferenceObject)
        const success = status.startsWith('2') || status.startsWith('3')
        return (
          <div key={status} className={styles.response}>
            <div className={styles.responseHead}>
              <span className={success ? styles.statusOk : styles.statusError}>{status}</span>
              <div>
                <MarkdownText text={response.description} />
              </div>
            </div>
            <ResponseHeaders headers={response.headers} />
            {Object.entries(response.content ?? {}).map(([mediaType, media]) => (
              <div key={mediaType}>
                <p className={styles.mediaType}>
                  <code>{mediaType}</code>: <SchemaType schema={media.schema} />
                </p>
                <ExampleList document={document} media={media} open={success} />
              </div>
            ))}
          </div>
        )
      })}
    </>
  )
}

function ResponseHeaders({ headers }: { headers: oas31.HeadersObject | undefined }) {
  const names = Object.keys(headers ?? {})
  if (names.length === 0) return null
  return (
    <p className={styles.headerList}>
      Headers:{' '}
      {names.map((name, index) => (
        <span key={name}>
          {index > 0 && ', '}
          {headers?.[name] && '$ref' in headers[name] ? <a href={`#${headerAnchor(name)}`}>{name}</a> : <code>{name}</code>}
        </span>
      ))}
    </p>
  )
}
