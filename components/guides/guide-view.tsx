import Link from 'next/link'
import referenceStyles from '@/components/api-reference/api-reference.module.css'
import { guideSlugs, guideTitle, readGuide, readerGuides } from './guide-files'
import { renderGuideMarkdown, type TocEntry } from './guide-markdown'
import styles from './guides.module.css'

/** The other documentation, the same in every guide's navigation: the five guides and the two references. */
function DocsLinks({ current }: { current?: string }) {
  return (
    <>
      <div className={referenceStyles.navSection}>Guides</div>
      <Link href="/docs" className={current === undefined ? styles.current : undefined}>
        All documentation
      </Link>
      {readerGuides.map((guide) => (
        <a key={guide.slug} href={`/docs/${guide.slug}`} className={current === guide.slug ? styles.current : undefined} aria-current={current === guide.slug ? 'page' : undefined}>
          {guide.reader}
        </a>
      ))}
      <div className={referenceStyles.navSection}>Reference</div>
      <Link href="/docs/api">API reference</Link>
      <Link href="/docs/content-api">Content API reference</Link>
    </>
  )
}

function TableOfContents({ toc }: { toc: TocEntry[] }) {
  return (
    <>
      <div className={referenceStyles.navSection}>On this page</div>
      {toc.map((entry) => (
        <a key={entry.id} href={`#${entry.id}`} className={entry.depth === 3 ? styles.tocSub : undefined}>
          {entry.text}
        </a>
      ))}
    </>
  )
}

/** One guide of docs/, rendered from its Markdown, with its table of contents beside it. */
export function GuideView({ slug }: { slug: string }) {
  const markdown = readGuide(slug)
  if (markdown === undefined) return null
  const { toc, body } = renderGuideMarkdown(markdown, guideTitle(markdown, slug))
  return (
    <div className={referenceStyles.layout}>
      <nav className={referenceStyles.nav} aria-label="Documentation">
        <DocsLinks current={slug} />
        <TableOfContents toc={toc} />
      </nav>
      <main className={`${referenceStyles.content} ${styles.guide}`}>{body}</main>
    </div>
  )
}

/** /docs: one guide per reader, the topic guides beside them, and the API references. */
export function DocsIndex() {
  const readers = new Set<string>(readerGuides.map((guide) => guide.slug))
  const topics = guideSlugs().filter((slug) => !readers.has(slug))
  return (
    <div className={referenceStyles.layout}>
      <nav className={referenceStyles.nav} aria-label="Documentation">
        <DocsLinks />
      </nav>
      <main className={`${referenceStyles.content} ${styles.guide}`}>
        <h1>Documentation</h1>
        <p>One guide for each kind of reader; the API references are generated from the same declarations the API validates with.</p>
        <h2 id="guides">Guides</h2>
        <ul className={styles.index}>
          {readerGuides.map((guide) => (
            <li key={guide.slug}>
              <Link href={`/docs/${guide.slug}`}>{guide.reader}</Link>: {guide.about}
            </li>
          ))}
        </ul>
        <h2 id="topics">In depth</h2>
        <ul className={styles.index}>
          {topics.map((slug) => (
            <li key={slug}>
              <Link href={`/docs/${slug}`}>{guideTitle(readGuide(slug)!, slug)}</Link>
            </li>
          ))}
        </ul>
        <h2 id="reference">Reference</h2>
        <ul className={styles.index}>
          <li>
            <Link href="/docs/api">API reference</Link>: every <code>/v1</code> operation, its scope, schemas and errors (<a href="/v1/openapi.json">openapi.json</a>)
          </li>
          <li>
            <Link href="/docs/content-api">Content API reference</Link>: a newsroom&apos;s published articles, read with a content key
          </li>
        </ul>
      </main>
    </div>
  )
}
