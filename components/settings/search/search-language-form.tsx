'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

/** Settings → Search: the language the newsroom's article search stems by. */
export function SearchLanguageForm() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const current = useQuery(trpc.newsroom.searchLanguage.queryOptions())
  const [chosen, setChosen] = useState<string | null>(null)
  const [status, setStatus] = useState<Status>(null)
  const save = useMutation(
    trpc.newsroom.setSearchLanguage.mutationOptions({
      onSuccess: async ({ language }) => {
        const label = current.data?.choices.find((choice) => choice.value === language)?.label ?? language
        setStatus({ kind: 'success', text: `Saved. Search now reads articles as ${label}; every article was indexed again.` })
        setChosen(null)
        await queryClient.invalidateQueries(trpc.newsroom.searchLanguage.queryFilter())
        await queryClient.invalidateQueries(trpc.articles.list.pathFilter())
      },
      onError: (error) => setStatus({ kind: 'error', text: refusalMessage(error) }),
    }),
  )
  if (current.isError) return <p className="alert error" role="alert">{refusalMessage(current.error)}</p>
  if (!current.data) return <p className="muted">Loading…</p>
  const value = chosen ?? current.data.language
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        setStatus(null)
        save.mutate({ language: value })
      }}
    >
      <StatusMessage status={status} />
      <label htmlFor="search-language">Language of the newsroom’s articles</label>
      <select id="search-language" value={value} onChange={(event) => setChosen(event.target.value)} aria-describedby="search-language-note">
        {current.data.choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <div id="search-language-note" className={styles.intro}>
        <p>
          <strong>What stemming changes.</strong> With a language chosen, search reduces words to their stems and ignores that language’s most
          common words: in English “budgets” finds “budget” and “budgeting”, and “the” or “of” match nothing by themselves. With no stemming
          every word must match as typed (“budgets” finds only “budgets”), which suits a newsroom writing in several languages.
        </p>
        <p>Saving indexes every article again, at once; in a large newsroom searches may be slow for that moment. The change is recorded in the audit log.</p>
      </div>
      <div className={styles.actions}>
        <button type="submit" disabled={save.isPending || value === current.data.language}>
          {save.isPending ? 'Saving and indexing…' : 'Save search language'}
        </button>
      </div>
    </form>
  )
}
