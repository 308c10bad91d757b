import { redirect } from 'next/navigation'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'

export default async function SettingsPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  redirect('/settings/api-keys')
}
