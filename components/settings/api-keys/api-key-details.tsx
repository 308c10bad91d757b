'use client'

import { useQuery } from '@tanstack/react-query'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { refusalMessage } from '@/components/portal-error'
import { ApiKeyActions } from './api-key-actions'
import styles from '../settings.module.css'

/** The key's name as the page heading, with what identifies it; never its secret. */
export function ApiKeyDetails({ tokenId }: { tokenId: string }) {
  const trpc = useTRPC()
  const key = useQuery(trpc.apiKeys.get.queryOptions({ id: tokenId }))
  if (key.isError) {
    return (
      <>
        <h1 id="page-heading">API key</h1>
        <p role="alert">{refusalMessage(key.error)}</p>
      </>
    )
  }
  if (!key.data) return <h1 id="page-heading">API key</h1>
  return (
    <>
      <h1 id="page-heading">{key.data.name}</h1>
      <p className={styles.intro}>
        <span className={styles.mono}>{key.data.prefix}…</span> · scopes {key.data.scopes.join(', ')} · created <LocalTime iso={key.data.createdAt} />
        {key.data.lastUsedAt ? (
          <>
            {' '}
            · last used <LocalTime iso={key.data.lastUsedAt} />
          </>
        ) : (
          ' · never used'
        )}
        {key.data.revokedAt && (
          <>
            {' '}
            · revoked <LocalTime iso={key.data.revokedAt} />
          </>
        )}
      </p>
      <dl className={styles.facts} data-testid="key-bounds">
        <dt>Expires</dt>
        <dd>
          {key.data.expiresAt ? (
            <>
              {key.data.expired ? 'Expired ' : ''}
              <LocalTime iso={key.data.expiresAt} />
            </>
          ) : (
            'Never'
          )}
        </dd>
        <dt>Allowed from</dt>
        <dd className={styles.mono}>{key.data.allowedAddresses.length ? key.data.allowedAddresses.join(', ') : 'Any address'}</dd>
        {key.data.rolledAt && (
          <>
            <dt>Rolled</dt>
            <dd>
              <LocalTime iso={key.data.rolledAt} />
              {key.data.previousSecretWorksUntil && (
                <>
                  ; the old secret works until <LocalTime iso={key.data.previousSecretWorksUntil} />
                </>
              )}
            </dd>
          </>
        )}
      </dl>
      <ApiKeyActions key={key.data.id} apiKey={key.data} />
    </>
  )
}
