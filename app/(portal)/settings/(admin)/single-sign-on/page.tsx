import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { getPortalActor } from '@/lib/auth/session'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { SsoSettingsForm } from '@/components/settings/sso/sso-settings-form'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Single sign-on' }

export default async function SingleSignOnPage() {
  const actor = await getPortalActor()
  if (!(await getSettingsAdmin()) || !actor) return <SettingsForbidden />
  const slug = actor.tenant.slug
  const origin = (process.env.NEXTAUTH_URL ?? 'http://localhost:3000').replace(/\/+$/, '')
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Single sign-on</h1>
      <p className={styles.intro}>
        Members sign in with your identity provider (OpenID Connect) and are matched by their verified e-mail address to an active
        user of this newsroom. Register this redirect URI with your provider:
      </p>
      <p>
        <code data-testid="sso-redirect-uri">{`${origin}/api/auth/callback/sso-${slug}`}</code>
      </p>
      <p className={styles.intro}>
        Members sign in at <code>{`${origin}/signin?newsroom=${slug}`}</code>. Saving asks for your password again when
        you last confirmed more than 10 minutes ago; every change is in the audit log.
      </p>
      <SsoSettingsForm />
    </section>
  )
}
