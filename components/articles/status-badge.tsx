import type { ApiStatus } from '@/lib/articles/article-status'
import styles from './status-badge.module.css'

export const statusLabels: Record<ApiStatus, string> = {
  draft: 'Draft',
  'in-review': 'In review',
  approved: 'Approved',
  published: 'Published',
  archived: 'Archived',
}

export function StatusBadge({ status, scheduled = false }: { status: ApiStatus; scheduled?: boolean }) {
  return (
    <span className={`${styles.badge} ${styles[status]}`} data-status={status}>
      {statusLabels[status]}
      {scheduled && status === 'approved' && ', scheduled'}
    </span>
  )
}
