'use client'

import { useState } from 'react'
import styles from './settings.module.css'

/** More than a screen: from here a list gets a search box and pages. */
export const rowsPerScreen = 20

/**
 * A long list narrowed to what someone looks for: the rows whose text matches the search (any
 * of `textOf`'s parts, ignoring case), a screen at a time. Short lists show as they are.
 */
export function useListNarrowing<Row>(rows: Row[], textOf: (row: Row) => (string | null | undefined)[]) {
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(0)
  const long = rows.length > rowsPerScreen
  const needle = search.trim().toLowerCase()
  const matching = needle ? rows.filter((row) => textOf(row).some((text) => text?.toLowerCase().includes(needle))) : rows
  const pages = Math.max(1, Math.ceil(matching.length / rowsPerScreen))
  const current = Math.min(page, pages - 1)
  const visible = long ? matching.slice(current * rowsPerScreen, (current + 1) * rowsPerScreen) : rows
  return {
    visible,
    controls: long && (
      <ListControls
        search={search}
        onSearch={(value) => {
          setSearch(value)
          setPage(0)
        }}
        shown={visible.length}
        matching={matching.length}
        total={rows.length}
        page={current}
        pages={pages}
        onPage={setPage}
      />
    ),
  }
}

function ListControls(props: { search: string; onSearch: (value: string) => void; shown: number; matching: number; total: number; page: number; pages: number; onPage: (page: number) => void }) {
  const from = props.matching === 0 ? 0 : props.page * rowsPerScreen + 1
  return (
    <div className={styles.listControls}>
      <label>
        Search
        <input type="search" value={props.search} onChange={(event) => props.onSearch(event.target.value)} />
      </label>
      <p role="status" aria-live="polite" className="muted">
        {props.matching === 0 ? `None of ${props.total} match.` : `${from}–${from + props.shown - 1} of ${props.matching}${props.matching < props.total ? ` matching (${props.total} in all)` : ''}`}
      </p>
      {props.pages > 1 && (
        <nav aria-label="Pages" className={styles.pager}>
          <button type="button" className="secondary" disabled={props.page === 0} onClick={() => props.onPage(props.page - 1)}>
            Previous
          </button>
          <button type="button" className="secondary" disabled={props.page >= props.pages - 1} onClick={() => props.onPage(props.page + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  )
}
