import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { DepartmentManager } from '@/components/settings/departments/department-manager'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Departments' }

export default async function DepartmentsPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Departments</h1>
      <p className={styles.intro}>
        Articles are filed under departments, and integrations filter by them (<code>department_id</code>). Renaming keeps the id. A
        department can be removed only when no article uses it.
      </p>
      <DepartmentManager />
    </section>
  )
}
