import Link from 'next/link'

/** What a signed-in editor or writer sees at a Settings address: a refusal that says why. */
export function SettingsForbidden() {
  return (
    <section aria-labelledby="forbidden-heading">
      <h1 id="forbidden-heading">403 · Admins only</h1>
      <p className="alert error" role="alert">
        Settings (API keys, webhooks, users, departments and the audit log) are for admins of this newsroom. Your account does
        not have access. Ask an admin if you need a key or a change here.
      </p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </section>
  )
}
