import Link from 'next/link'
import { rotationRecommendedAfterDays } from '@/lib/tokens/api-token-schemas'
import type { ApiKeyView } from '@/lib/trpc/routers/api-keys-router'
import { LocalTime } from '@/components/local-time'
import styles from '../settings.module.css'

/** Keys as rows; the token itself is never part of this data, only its display prefix. */
export function ApiKeyTable({ keys, caption, onRevoke }: { keys: ApiKeyView[]; caption: string; onRevoke?: (key: ApiKeyView) => void }) {
  return (
    <div className={styles.tableWrap}>
      <table>
        <caption className={styles.visuallyHidden}>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Allowed from</th>
            <th scope="col">Status</th>
            {onRevoke && <th scope="col"><span className={styles.visuallyHidden}>Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} data-testid={`api-key-${key.id}`}>
              <th scope="row">
                <Link href={`/settings/api-keys/${key.id}`} title={`Requests made with ${key.name}`}>
                  {key.name}
                </Link>
              </th>
              <td data-label="Prefix" className={`${styles.mono} ${styles.nowrap}`}>{key.prefix}…</td>
              <td data-label="Scopes">
                <ul className={styles.chips} aria-label={`Scopes of ${key.name}`}>
                  {key.scopes.map((scope) => (
                    <li key={scope} className={styles.chip}>
                      {scope}
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="Created" className={styles.date}>
                <LocalTime iso={key.createdAt} />
                <div className={`${styles.small} muted`}>by {key.createdByName ?? 'the command line'}</div>
              </td>
              <td data-label="Last used" className={styles.date}>{key.lastUsedAt ? <LocalTime iso={key.lastUsedAt} /> : <span className="muted">Never</span>}</td>
              <td data-label="Expires" className={styles.date}>{key.expiresAt ? <LocalTime iso={key.expiresAt} /> : <span className="muted">Never</span>}</td>
              <td data-label="Allowed from" className={styles.mono}>{key.allowedAddresses.length ? key.allowedAddresses.map((range) => <div key={range}>{range}</div>) : <span className="muted">Any address</span>}</td>
              <td data-label="Status">
                {key.revokedAt ? (
                  <>
                    <span className={`${styles.badge} ${styles.danger}`}>Revoked</span>
                    <div className={`${styles.small} muted`}><LocalTime iso={key.revokedAt} /></div>
                  </>
                ) : key.expired ? (
                  <>
                    <span className={`${styles.badge} ${styles.danger}`}>Expired</span>
                    <div className={`${styles.small} muted`}><LocalTime iso={key.expiresAt!} /></div>
                  </>
                ) : !key.ownerActive ? (
                  <>
                    <span className={`${styles.badge} ${styles.danger}`}>Not working</span>
                    <div className={`${styles.small} muted`}>Its owner, {key.ownerName}, is deactivated.</div>
                  </>
                ) : key.rotationRecommended ? (
                  <span className={`${styles.badge} ${styles.warn}`} title={`Older than ${rotationRecommendedAfterDays} days`}>
                    Rotation recommended
                  </span>
                ) : (
                  <span className={`${styles.badge} ${styles.ok}`}>Active</span>
                )}
                {key.previousSecretWorksUntil && (
                  <div className={`${styles.small} muted`} data-testid={`old-secret-${key.id}`}>
                    Rolled; the old secret works until <LocalTime iso={key.previousSecretWorksUntil} />
                  </div>
                )}
              </td>
              {onRevoke && (
                <td>
                  <button type="button" className="secondary" onClick={() => onRevoke(key)} aria-label={`Revoke ${key.name}`}>
                    Revoke
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
