'use client'

import { useMutation } from '@tanstack/react-query'
import { refusalMessage } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'

/**
 * The archive's download: a mutation on the declared sudo list first (newsroom.confirmExport),
 * so a session whose last proof is old meets "Confirm it's you", then the download itself
 * (/api/newsroom-export checks the same window).
 */
/** The download itself, as the page's link did it (a file, not a navigation). */
function download() {
  const link = document.createElement('a')
  link.href = '/api/newsroom-export'
  link.download = ''
  document.body.append(link)
  link.click()
  link.remove()
}

export function ExportDownload() {
  const trpc = useTRPC()
  const confirm = useMutation(trpc.newsroom.confirmExport.mutationOptions())
  return (
    <>
      <button
        type="button"
        disabled={confirm.isPending}
        onClick={() => confirm.mutate(undefined, { onSuccess: download })}
      >
        Download the newsroom’s archive (NDJSON)
      </button>
      {confirm.error && <span role="alert">{refusalMessage(confirm.error)}</span>}
    </>
  )
}
