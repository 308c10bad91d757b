import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SearchLanguageForm } from '@/components/settings/search/search-language-form'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'

export const metadata: Metadata = { title: 'Search' }

export default async function SearchSettingsPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Search</h1>
      <SearchLanguageForm />
    </section>
  )
}
