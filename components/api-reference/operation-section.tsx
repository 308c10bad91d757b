import type { oas31 } from 'zod-openapi'
import { ExampleList } from './example-list'
import { MarkdownText } from './markdown-text'
import { descriptionWithoutScope, operationAnchor, resolve, type Document, type OperationEntry } from './openapi-view-model'
import { OperationParameters } from './operation-parameters'
import { OperationResponses } from './operation-responses'
import { SchemaFields } from './schema-fields'
import { SchemaType } from './schema-type'
import styles from './api-reference.module.css'

export function OperationSection({ document, entry }: { document: Document; entry: OperationEntry }) {
  const { operation } = entry
  const scope = operation['x-required-scope']
  const body = operation.requestBody ? resolve<oas31.RequestBodyObject>(document, operation.requestBody) : undefined
  const json = body?.content['application/json']
  return (
    <section id={operationAnchor(entry.id)} className={styles.operation} aria-labelledby={`${operationAnchor(entry.id)}-title`}>
      <h3 id={`${operationAnchor(entry.id)}-title`} className={styles.operationTitle}>
        <span className={`${styles.method} ${styles[`method${entry.method}`] ?? ''}`}>{entry.method}</span>{' '}
        {entry.kind === 'webhook' ? <span>your subscription&apos;s url</span> : <code>{entry.path}</code>}
      </h3>
      <p className={styles.summary}>
        {operation.summary}
        {entry.kind === 'webhook' ? (
          <span className={styles.scope}>sent by the service</span>
        ) : scope ? (
          <span className={styles.scope}>
            scope <code>{scope}</code>
            {scope !== 'admin' && (
              <>
                {' '}
                or <code>admin</code>
              </>
            )}
          </span>
        ) : (
          <span className={styles.scope}>public, no token</span>
        )}
      </p>
      <MarkdownText text={descriptionWithoutScope(operation.description)} headingLevel={4} />
      <OperationParameters document={document} parameters={operation.parameters} />
      {json?.schema && (
        <>
          <h4>
            Request body: <SchemaType schema={json.schema} />
          </h4>
          {body?.description && <MarkdownText text={body.description} />}
          <SchemaFields document={document} schema={json.schema} />
          <ExampleList document={document} media={json} open />
        </>
      )}
      <OperationResponses document={document} responses={operation.responses} />
    </section>
  )
}
