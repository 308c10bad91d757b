import { MarkdownText } from './markdown-text'
import { quickStartExamples, quickStartSetup } from './quick-start-examples'
import styles from './api-reference.module.css'

/** Copy-paste examples of the commonest tasks, curl and the typed client side by side; a test runs each. */
export function QuickStartSection() {
  return (
    <section id="quick-start" aria-labelledby="quick-start-title">
      <h2 id="quick-start-title">Quick start</h2>
      <p>
        The five tasks most integrations start with. Set the service&apos;s address and a key once; the TypeScript snippets use the typed client in <code>clients/typescript</code> and run
        with <code>npx tsx</code> from the repository&apos;s root.
      </p>
      <div className={styles.example}>
        <pre>
          <code>{quickStartSetup}</code>
        </pre>
      </div>
      {quickStartExamples.map((example) => (
        <article key={example.id} id={`quick-start-${example.id}`} aria-labelledby={`quick-start-${example.id}-title`}>
          <h3 id={`quick-start-${example.id}-title`}>{example.title}</h3>
          <p className="muted">
            Scope <code>{example.scope}</code>
          </p>
          <MarkdownText text={example.text} />
          <div className={styles.example}>
            <h4>curl</h4>
            <pre>
              <code>{example.curl}</code>
            </pre>
            <h4>TypeScript</h4>
            <pre>
              <code>{example.client}</code>
            </pre>
          </div>
        </article>
      ))}
    </section>
  )
}
