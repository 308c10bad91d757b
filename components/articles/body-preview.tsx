'use client'

import { useMemo } from 'react'
import { sanitizeBody } from '@/lib/articles/sanitize-body'
import editorStyles from './rich-text-editor.module.css'
import styles from './articles.module.css'

/**
 * The body as readers will get it: through sanitizeBody, the one allow-list every rendering
 * of a body uses, so what the preview shows is what the public site may show.
 */
export function BodyPreview({ id, headline, lede, body }: { id: string; headline: string; lede: string; body: string }) {
  const safe = useMemo(() => sanitizeBody(body), [body])
  return (
    <section id={id} className={styles.preview} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Preview</h2>
      <p className={styles.hint}>As readers will see it: markup that could run code or restyle the page is removed.</p>
      <article>
        <h3>{headline || <span className="muted">No headline yet</span>}</h3>
        {lede && <p>
          <strong>{lede}</strong>
        </p>}
        {/* sanitizeBody's output is the only HTML ever inserted into a page. */}
        <div className={editorStyles.prose} data-testid="body-preview" dangerouslySetInnerHTML={{ __html: safe }} />
      </article>
    </section>
  )
}
