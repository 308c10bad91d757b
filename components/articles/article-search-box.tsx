'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef, useState } from 'react'
import { listHref, type ListParams } from './article-list-params'
import styles from './articles.module.css'

const debounceMs = 350

/**
 * Searches as the editor types, once they pause: the query goes into the list's URL (so the
 * results can be shared and reloaded) beside the other filters, and paging starts again.
 * The URL is replaced, not pushed, so Back leaves the list instead of replaying keystrokes.
 */
export function ArticleSearchBox({ params }: { params: ListParams }) {
  const router = useRouter()
  const [text, setText] = useState(params.q ?? '')
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  const onChange = (value: string) => {
    setText(value)
    clearTimeout(timer.current)
    const q = value.trim() || undefined
    timer.current = setTimeout(() => {
      if (q !== params.q) router.replace(listHref({ ...params, q, offset: 0 }))
    }, debounceMs)
  }

  return (
    <form role="search" aria-label="Search articles" className={styles.searchBox} onSubmit={(event) => event.preventDefault()}>
      <label htmlFor="article-search">Search</label>
      <input
        id="article-search"
        type="search"
        value={text}
        onChange={(event) => onChange(event.target.value)}
        maxLength={500}
        autoComplete="off"
        aria-describedby="article-search-hint"
      />
      <p id="article-search-hint" className="hint">
        Words in headline, lede, tags and text. Use &quot;quotes&quot; for a phrase, -word to leave out, or for either.
      </p>
    </form>
  )
}
