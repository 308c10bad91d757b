import type { Metadata } from 'next'
import { getSettingsAdmin } from '@/lib/auth/settings-admin'
import { SettingsForbidden } from '@/components/settings/settings-forbidden'
import { TwoFactorPolicyForm } from '@/components/settings/two-factor/two-factor-policy-form'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Two-factor policy' }

export default async function TwoFactorPolicyPage() {
  if (!(await getSettingsAdmin())) return <SettingsForbidden />
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Two-factor policy</h1>
      <p className={styles.intro}>
        Who in this newsroom must sign in with a second factor (an authenticator app or a passkey) after the password. A member it covers who
        has none may still sign in during the grace period, with a reminder on every page; after it, they must set one up before anything else.
        For sign-ins through your identity provider (single sign-on), choose whether its own MFA is trusted or the portal’s factor is asked
        too; admins can be held to the portal’s factor either way. A policy that would lock you out (it asks a factor of you at once and you
        have none) is refused. Saving asks for your password or a code again when you last confirmed more than 10 minutes ago; every change is
        in the audit log. A member who lost their device and recovery codes: reset their factors in Users.
      </p>
      <TwoFactorPolicyForm />
    </section>
  )
}
