import type { ReactNode } from 'react'
import { forbidden } from 'next/navigation'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'

/**
 * Every page below checks the role itself as well; this covers the first render of any of them.
 * forbidden() makes the answer a real HTTP 403 (rendered by app/(portal)/forbidden.tsx), so
 * scripts and crawlers see the refusal too, not a 200 page that says no.
 */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const admin = await getSettingsAdmin()
  if (!admin) forbidden()
  return children
}
