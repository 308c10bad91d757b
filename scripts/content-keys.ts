/**
 * npm run content-keys -- create --tenant <slug> --name <name>
 * npm run content-keys -- list --tenant <slug>
 * npm run content-keys -- revoke <key-id-or-prefix>
 *
 * In this checkout's database (own-database.ts) or DATABASE_URL's; the commands themselves are
 * in content-keys-command.ts.
 */
import './log-to-stderr.ts'
import { withOwnDatabase } from './own-database.ts'

await withOwnDatabase(async () => {
  const { runContentKeysCommand } = await import('./content-keys-command.ts')
  await runContentKeysCommand()
})
