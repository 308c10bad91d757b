import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { CreateUserForm } from '@/components/settings/users/create-user-form'
import { UserList } from '@/components/settings/users/user-list'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Users' }

export default async function UsersPage() {
  const admin = await getSettingsAdmin()
  if (!admin) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Users</h1>
      <p className={styles.intro}>
        Everyone who signs in to {admin.tenantName}. A role change applies on the person’s next click; deactivating someone signs them out
        and stops their API keys. The newsroom always keeps at least one active admin.
      </p>
      <UserList currentUserId={admin.id} />
      <CreateUserForm />
    </section>
  )
}
