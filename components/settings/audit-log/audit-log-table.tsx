import type { AuditEntryView } from '@/lib/audit/list-audit-entries'
import { LocalTime } from '@/components/local-time'
import styles from '../settings.module.css'

const actionLabels: Record<string, string> = {
  'api_token.created': 'Created API key',
  'api_token.revoked': 'Revoked API key',
  'webhook.created': 'Created webhook subscription',
  'webhook.updated': 'Changed webhook subscription',
  'webhook.deleted': 'Deleted webhook subscription',
  'webhook.reenabled': 'Re-enabled webhook subscription',
  'webhook.secret_rotated': 'Rotated webhook signing secret',
  'webhook.paused': 'Paused webhook subscription',
  'webhook.resumed': 'Resumed webhook subscription',
  'user.created': 'Added user',
  'user.role_changed': 'Changed role',
  'user.deactivated': 'Deactivated user',
}

// A short reading of the entry's metadata; secrets are never recorded there.
function details(entry: AuditEntryView): string {
  const m = entry.metadata
  const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : '')
  switch (entry.action) {
    case 'api_token.created':
      return `Scopes: ${list(m.scopes)}`
    case 'webhook.created':
      return `Events: ${list(m.events)}`
    case 'webhook.updated':
      return `Changed: ${list(m.changed)}`
    case 'user.created':
      return `Role: ${String(m.role ?? '')}`
    case 'user.role_changed':
      return `${String(m.previous_role ?? '?')} → ${String(m.role ?? '?')}`
    default:
      return ''
  }
}

export function AuditLogTable({ entries }: { entries: AuditEntryView[] }) {
  return (
    <div className={styles.tableWrap}>
      <table>
        <caption className={styles.visuallyHidden}>Audit entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className={styles.date}>
                <LocalTime iso={entry.createdAt} seconds />
              </td>
              <td>{entry.actor ? entry.actor.name : <span className="muted">System or command line</span>}</td>
              <td>
                {actionLabels[entry.action] ?? entry.action}
                <div className={`muted ${styles.mono} ${styles.small}`}>{entry.action}</div>
              </td>
              <td className={styles.breakAll}>
                {entry.targetLabel}
                <div className={`muted ${styles.mono} ${styles.small}`}>
                  {entry.targetType} {entry.targetId}
                </div>
              </td>
              <td className={styles.small}>{details(entry)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
