import type { AuditEntryView } from '@/lib/audit/list-audit-entries'
import { LocalTime } from '@/components/local-time'
import styles from '../settings.module.css'

const actionLabels: Record<string, string> = {
  'api_token.created': 'Created API key',
  'api_token.revoked': 'Revoked API key',
  'api_token.renamed': 'Renamed API key',
  'api_token.rolled': 'Rolled API key',
  'api_token.allowlist_changed': 'Changed API key allowlist',
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
  'user.password_changed': 'Changed password',
  'user.sessions_ended': 'Ended sessions',
  'tenant.search_language_changed': 'Changed search language',
  'sso.updated': 'Changed single sign-on',
  'sso.sign_in_refused': 'Refused single sign-on',
  'sso.sign_in_failed': 'Single sign-on answer failed its checks',
  'sso.recovery_sign_in': 'Signed in with password (SSO required)',
  'two_factor.totp_enrolled': 'Set up an authenticator app',
  'two_factor.totp_removed': 'Removed authenticator app',
  'two_factor.recovery_codes_regenerated': 'Made new recovery codes',
  'two_factor.recovery_code_used': 'Signed in with a recovery code',
  'two_factor.policy_changed': 'Changed two-factor policy',
  'two_factor.sign_in_locked': 'Sign-in stopped after wrong codes',
  'user.factors_reset': 'Reset two-factor',
  'tenant.created': 'Created the newsroom',
  'tenant.export_started': 'Started an export of the newsroom',
  'tenant.exported': 'Exported the newsroom',
  'tenant.imported': 'Imported the newsroom',
  'content_key.created': 'Created content key',
  'content_key.revoked': 'Revoked content key',
  'user.sign_in_failed': 'Failed sign-in',
  'user.sign_in_locked': 'Sign-in locked against guessing addresses',
  'user.sign_in_unlocked': 'Sign-in lock ended',
}

// A short reading of the entry's metadata; secrets are never recorded there.
function details(entry: AuditEntryView): string {
  const m = entry.metadata
  const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : '')
  switch (entry.action) {
    case 'api_token.created':
      return [`Scopes: ${list(m.scopes)}`, m.expiresAt ? `expires ${String(m.expiresAt)}` : '', list(m.allowedAddresses) ? `from ${list(m.allowedAddresses)}` : ''].filter(Boolean).join(' · ')
    case 'api_token.renamed':
      return `“${String(m.from ?? '')}” → “${String(m.to ?? '')}”`
    case 'api_token.rolled':
      return `Old secret ${String(m.previousPrefix ?? '')}… overlap ${String(m.overlap ?? '')}`
    case 'api_token.allowlist_changed':
      return `${list(m.from) || 'any address'} → ${list(m.to) || 'any address'}`
    case 'tenant.search_language_changed':
      return `${String(m.from ?? '?')} → ${String(m.to ?? '?')}`
    case 'user.sessions_ended':
      return `${String(m.count ?? '')} session(s): ${String(m.reason ?? '')}`
    case 'webhook.created':
      return `Events: ${list(m.events)}`
    case 'webhook.updated':
      return `Changed: ${list(m.changed)}`
    case 'user.created':
      return [`Role: ${String(m.role ?? '')}`, m.via === 'sso_just_in_time' ? 'created just in time by single sign-on' : m.via === 'command_line' ? 'provisioned from the command line' : ''].filter(Boolean).join(' · ')
    case 'tenant.created':
      return m.via === 'command_line' ? 'Provisioned from the command line' : ''
    case 'tenant.export_started':
      return m.via ? String(m.via) : ''
    case 'tenant.exported':
    case 'tenant.imported':
      return `${String(m.records ?? '?')} records${m.via ? ` · ${String(m.via)}` : ''}`
    case 'sso.updated':
      return [`Changed: ${list(m.changed)}`, m.requireSso ? 'SSO required' : '', m.jitEmailDomain ? `just in time for ${String(m.jitEmailDomain)}` : ''].filter(Boolean).join(' · ')
    case 'sso.sign_in_refused':
      return `${String(m.email ?? '')}: ${String(m.reason ?? '')}`
    case 'sso.sign_in_failed':
      return String(m.reason ?? '')
    case 'sso.recovery_sign_in':
      return `From ${String(m.address ?? '')}`
    case 'two_factor.recovery_code_used':
      return `${String(m.left ?? '?')} left · from ${String(m.address ?? '')}`
    case 'two_factor.policy_changed': {
      const side = (value: unknown) => {
        const { policy, graceDays, ssoSecondFactor, adminsNeedPortalFactor } = (value ?? {}) as { policy?: string; graceDays?: number; ssoSecondFactor?: string; adminsNeedPortalFactor?: boolean }
        const sso = ssoSecondFactor === 'portal_factor' ? ', SSO also asks the portal factor' : ''
        return `${policy ?? '?'} (${graceDays ?? '?'} days' grace${sso}${adminsNeedPortalFactor ? ', admins always' : ''})`
      }
      return `${side(m.from)} → ${side(m.to)}`
    }
    case 'two_factor.sign_in_locked':
      return `${String(m.attempts ?? '')} wrong codes from ${String(m.address ?? '')}`
    case 'user.sign_in_failed':
      return [`${String(m.reason ?? '').replaceAll('_', ' ')} at ${String(m.step ?? '').replaceAll('_', ' ')}`, `from ${String(m.address ?? '')}`, m.accountLocked ? 'while locked' : ''].filter(Boolean).join(' · ')
    case 'user.sign_in_locked':
      return `${String(m.failures ?? '')} failures · latest from ${String(m.address ?? '')} · until ${String(m.until ?? '')}`
    case 'user.sign_in_unlocked':
      return `Its failures left the window (locked until ${String(m.lockedUntil ?? '')})`
    case 'user.factors_reset':
      return `Removed: ${list(m.removed) || 'nothing'} · ${String(m.ended_sessions ?? 0)} session(s) ended`
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
              <td data-label="When" className={styles.date}>
                <LocalTime iso={entry.createdAt} seconds />
              </td>
              <td data-label="Who">{entry.actor ? entry.actor.name : <span className="muted">System or command line</span>}</td>
              <td data-label="What">
                {actionLabels[entry.action] ?? entry.action}
                <div className={`muted ${styles.mono} ${styles.small}`}>{entry.action}</div>
              </td>
              <td data-label="Target" className={styles.breakAll}>
                {entry.targetLabel}
                <div className={`muted ${styles.mono} ${styles.small}`}>
                  {entry.targetType} {entry.targetId}
                </div>
              </td>
              <td data-label="Details" className={styles.small}>{details(entry)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
