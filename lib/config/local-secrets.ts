import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Secrets the service needs; an operator sets them, the embedded default makes and keeps them. */
const localSecretNames = ['NEXTAUTH_SECRET', 'WEBHOOK_SECRET_KEY'] as const
type LocalSecretName = (typeof localSecretNames)[number]

const secretsFile = () => path.resolve(process.env.LOCAL_SECRETS_FILE ?? '.data/secrets.json')

/**
 * Fills every secret missing from the environment from `.data/secrets.json`, generating
 * and saving any it lacks, so sessions and encrypted webhook secrets survive restarts.
 */
export function ensureLocalSecrets(env: NodeJS.ProcessEnv = process.env): Record<LocalSecretName, string> {
  const file = secretsFile()
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
