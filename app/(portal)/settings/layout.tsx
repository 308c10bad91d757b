import type { ReactNode } from 'react'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'

/** Every page below checks the role itself as well; this covers the first render of any of them. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const admin = await getSettingsAdmin()
  return admin ? children : <SettingsForbidden />
}
