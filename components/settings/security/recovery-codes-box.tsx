import styles from '../settings.module.css'

/** New recovery codes, shown once (after the first factor, or "New recovery codes"), never again. */
export function RecoveryCodesBox({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  return (
    <section className={styles.secretBox} aria-labelledby="recovery-codes-heading">
      <h3 id="recovery-codes-heading">Your recovery codes</h3>
      <p>
        Keep these somewhere safe (a password manager, or printed). Each one signs you in once when you do not have your phone or passkey. They
        are shown only now.
      </p>
      <ul className={styles.recoveryCodes} data-testid="recovery-codes">
        {codes.map((value) => (
          <li key={value}>
            <code>{value}</code>
          </li>
        ))}
      </ul>
      <button type="button" className="secondary" onClick={onSaved}>
        I have saved them
      </button>
    </section>
  )
}
