import type { oas31 } from 'zod-openapi'
import { ApiReferenceNav } from './api-reference-nav'
import { HeadersSection, SchemasSection } from './components-section'
import { ErrorsSection } from './errors-section'
import { MarkdownText } from './markdown-text'
import { operationsByTag, resolve, type Document } from './openapi-view-model'
import { OperationSection } from './operation-section'
import { QuickStartSection } from './quick-start-section'
import styles from './api-reference.module.css'

/**
 * The whole reference, rendered on the server from the OpenAPI document alone: /v1's (with its
 * quick start) or the public content API's. `documentPath` is where the service serves it.
 */
export function ApiReference({ document, documentPath, quickStart = false }: { document: Document; documentPath: string; quickStart?: boolean }) {
  const groups = operationsByTag(document)
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).map(([name, scheme]) => ({
    name,
    ...resolve<oas31.SecuritySchemeObject>(document, scheme),
  }))
  return (
    <div className={styles.layout}>
      <ApiReferenceNav groups={groups} documentPath={documentPath} quickStart={quickStart} />
      <main className={styles.content}>
        <section id="overview" aria-labelledby="overview-title">
          <h1 id="overview-title">{document.info.title}</h1>
          <p className="muted">
            Version {document.info.version} · OpenAPI {document.openapi} · <a href={documentPath}>{documentPath}</a>
          </p>
          {document.info.description && <MarkdownText text={document.info.description} />}
        </section>
        <section id="authentication" aria-labelledby="authentication-title">
          <h2 id="authentication-title">Authentication</h2>
          {schemes.map((scheme) => scheme.description && <MarkdownText key={scheme.name} text={scheme.description} />)}
        </section>
        {quickStart && <QuickStartSection />}
        {groups.map((group) => (
          <section key={group.name} id={`tag-${group.name.toLowerCase().replace(/\s+/g, '-')}`} aria-label={group.name}>
            <h2>{group.name}</h2>
            {group.description && <MarkdownText text={group.description} />}
            {group.operations.map((entry) => (
              <OperationSection key={entry.id} document={document} entry={entry} />
            ))}
          </section>
        ))}
        <ErrorsSection document={document} />
        <SchemasSection document={document} />
        <HeadersSection document={document} />
      </main>
    </div>
  )
}
