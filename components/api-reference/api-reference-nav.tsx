import { operationAnchor, type TagGroup } from './openapi-view-model'
import styles from './api-reference.module.css'

export function ApiReferenceNav({ groups, documentPath, quickStart }: { groups: TagGroup[]; documentPath: string; quickStart: boolean }) {
  return (
    <nav className={styles.nav} aria-label="API reference">
      <a href="#overview">Overview</a>
      <a href="#authentication">Authentication</a>
      {quickStart && <a href="#quick-start">Quick start</a>}
      {groups.map((group) => (
        <div key={group.name}>
          <div className={styles.navSection}>{group.name}</div>
          {group.operations.map((entry) => (
            <a key={entry.id} href={`#${operationAnchor(entry.id)}`}>
              <span className={styles.navMethod}>{entry.method}</span> {entry.operation.summary}
            </a>
          ))}
        </div>
      ))}
      <div className={styles.navSection}>Reference</div>
      <a href="#errors">Errors</a>
      <a href="#schemas">Schemas</a>
      <a href="#headers">Response headers</a>
      <a href={documentPath}>openapi.json</a>
    </nav>
  )
}
