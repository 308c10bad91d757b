import { rotationRecommendedAfterDays } from '@/lib/tokens/api-tokens'
import styles from '../settings.module.css'

/** The rotation flow of the spec (section 5), where the people who rotate keys will look for it. */
export function RotationHelp() {
  return (
    <section aria-labelledby="rotation-heading" className={styles.intro}>
      <h2 id="rotation-heading">Rotating a key</h2>
      <p>
        Keys never expire on their own unless an expiry was chosen when they were created. We recommend replacing each key every {rotationRecommendedAfterDays} days; keys older than that are
        marked <em>Rotation recommended</em>. To rotate without downtime:
      </p>
      <ol>
        <li>Create a new key with the same scopes and store its token where the integration reads its configuration.</li>
        <li>Deploy the integration with the new token and check that its requests succeed (the new key’s “Last used” fills in).</li>
        <li>Revoke the old key here. It stops working immediately: its next request is answered 401.</li>
      </ol>
      <p>
        Or <strong>roll</strong> the key on its page: it gets a new secret and keeps its name, scopes, bounds and request log, and the old secret
        keeps working for the overlap you choose (none, 1 hour, 24 hours or 7 days), shown in this list until it lapses.
      </p>
    </section>
  )
}
