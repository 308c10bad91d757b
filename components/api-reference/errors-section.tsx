import type { oas31 } from 'zod-openapi'
import { ExampleList } from './example-list'
import { MarkdownText } from './markdown-text'
import { problemCodes, resolve, type Document } from './openapi-view-model'
import { SchemaFields } from './schema-fields'
import styles from './api-reference.module.css'

/**
 * One entry per problem code, each with the anchor its problem bodies' `type` points at
 * (`/docs/api#error-<code>`).
 */
export function ErrorsSection({ document }: { document: Document }) {
  const methodNotAllowed = document.components?.responses?.MethodNotAllowed
  const notAllowed = methodNotAllowed ? resolve<oas31.ResponseObject>(document, methodNotAllowed).content?.['application/problem+json'] : undefined
  return (
    <section id="errors" aria-labelledby="errors-title">
      <h2 id="errors-title">Errors</h2>
      <p>
        Every failure is an RFC 9457 problem details body sent as <code>application/problem+json</code>. Branch on <code>status</code> and{' '}
        <code>code</code>; <code>detail</code> is written for people and may change.
      </p>
      <SchemaFields document={document} schema={{ $ref: '#/components/schemas/Problem' }} />
      <dl className={styles.errors}>
        {problemCodes(document).map((entry) => (
          <div key={entry.code} id={`error-${entry.code}`} className={styles.errorEntry}>
            <dt>
              <span className={styles.statusError}>{entry.status}</span> <code>{entry.code}</code> <span className="muted">{entry.title}</span>
            </dt>
            <dd>
              <MarkdownText text={entry.description} />
              {entry.code === 'method_not_allowed' && notAllowed && <ExampleList document={document} media={notAllowed} />}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
