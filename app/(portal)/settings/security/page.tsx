import type { Metadata } from 'next'
import { requirePortalUser } from '@/lib/auth/session'
import { passkeyAvailability } from '@/lib/auth/passkeys'
import { ChangePasswordForm } from '@/components/settings/security/change-password-form'
import { SessionList } from '@/components/settings/security/session-list'
import { PasskeyList } from '@/components/settings/security/passkey-list'
import { TwoFactorSection } from '@/components/settings/security/two-factor-section'
import styles from '@/components/settings/settings.module.css'

export const metadata: Metadata = { title: 'Security' }

/** Every member's own sign-in: where they are signed in, their passkeys, their second factor and their password. Not an admin page. */
export default async function SecurityPage() {
  const user = await requirePortalUser()
  // Said before anyone presses "Add a passkey": the browser's own refusal names no cause.
  const availability = passkeyAvailability()
  return (
    <section aria-labelledby="page-heading">
      <h1 id="page-heading">Security</h1>
      <p className={styles.intro}>
        Where you, {user.name}, are signed in to {user.tenantName}, your passkeys, your second factor and your password. Sign out a session you do not recognise,
        then change your password: that signs out every other session at once.
      </p>
      <TwoFactorSection />
      <SessionList />
      <PasskeyList unavailable={availability.available ? null : availability.reason} />
      <ChangePasswordForm />
    </section>
  )
}
