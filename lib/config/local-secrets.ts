import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Secrets the service needs; an operator sets them, the embedded default makes and keeps them. */
const localSecretNames = ['NEXTAUTH_SECRET', 'WEBHOOK_SECRET_KEY'] as const
type LocalSecretName = (typeof localSecretNames)[number]

const secretsFile = () => path.resolve(process.env.LOCAL_SECRETS_FILE ?? '.data/secrets.json')

/**
 * Fills every secret missing from the environment from `.data/secrets.json` (or `file`),
 * generating and saving any it lacks, so sessions and encrypted webhook secrets survive restarts.
 */
export function ensureLocalSecrets(env: NodeJS.ProcessEnv = process.env, file = secretsFile()): Record<LocalSecretName, string> {
  const saved: Partial<Record<LocalSecretName, string>> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
  let changed = false
  for (const name of localSecretNames) {
    if (env[name]) continue
    if (!saved[name]) {
      saved[name] = randomBytes(32).toString('base64url')
      changed = true
    }
    env[name] = saved[name]
  }
  if (changed) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 })
  }
  return Object.fromEntries(localSecretNames.map((name) => [name, env[name]!])) as Record<LocalSecretName, string>
}

/**
 * In production against a database of its own (DATABASE_URL), the secrets must come from the
 * operator: generated per host they would differ between instances, and a session signed by
 * one, or a webhook secret encrypted by it, would not be readable by the others. Returns the
 * refusal naming what is missing, or null. The embedded default (no DATABASE_URL) still
 * generates them (ensureLocalSecrets).
 */
export function missingProductionSecrets(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.NODE_ENV !== 'production' || !env.DATABASE_URL) return null
  const missing = localSecretNames.filter((name) => !env[name])
  if (missing.length === 0) return null
  return (
    `Refusing to start: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set. In production with DATABASE_URL every instance must share the same ` +
    `${missing.length === 1 ? 'value' : 'values'} (sessions and encrypted webhook secrets are read by every instance); generate ${missing.length === 1 ? 'it' : 'each'} once, e.g. \`openssl rand -base64 32\`, ` +
    'and set it in every instance\'s environment. See docs/deploy.md, "Shared secrets".'
  )
}
