import type { oas31 } from 'zod-openapi'
import { MarkdownInline } from './markdown-text'
import { formatJson, resolve, type Document } from './openapi-view-model'
import styles from './api-reference.module.css'

/** A media type's examples, each folded in a <details> so long bodies do not swamp the page. */
export function ExampleList({ document, media, open = false }: { document: Document; media: oas31.MediaTypeObject; open?: boolean }) {
  const examples = Object.entries(media.examples ?? {}).map(([name, example]) => ({ name, ...resolve<oas31.ExampleObject>(document, example) }))
  if (examples.length === 0 && media.example !== undefined) examples.push({ name: 'example', value: media.example })
  return (
    <>
      {examples.map((example, index) => (
        <details key={example.name} className={styles.example} open={open && index === 0}>
          <summary>
            Example: <MarkdownInline text={example.summary ?? example.name} />
          </summary>
          <pre>
            <code>{formatJson(example.value)}</code>
          </pre>
        </details>
      ))}
    </>
  )
}
