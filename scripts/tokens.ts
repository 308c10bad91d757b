/**
 * npm run tokens -- create --tenant <slug> --name <name> --scopes <a,b> [--owner <email>]
 * npm run tokens -- revoke <token-prefix-or-id>
 * npm run tokens -- list --tenant <slug>
 *
 * Keys are made in this checkout's database (own-database.ts), never in another's that happens
 * to listen nearby; the commands themselves are in tokens-command.ts.
 */
import { withOwnDatabase } from './own-database.ts'

await withOwnDatabase(async () => {
  const { runTokensCommand } = await import('./tokens-command.ts')
  await runTokensCommand()
})
