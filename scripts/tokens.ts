/**
 * npm run tokens -- create --tenant <slug> --name <name> --scopes <a,b> [--owner <email>] [--expires 30|90|365|YYYY-MM-DD] [--allow <cidr,cidr>]
 * npm run tokens -- roll <token-prefix-or-id> --overlap none|1h|24h|7d
 * npm run tokens -- rename <token-prefix-or-id> --name <name>
 * npm run tokens -- allow <token-prefix-or-id> --allow <cidr,cidr>   (an empty list admits any address)
 * npm run tokens -- revoke <token-prefix-or-id>
 * npm run tokens -- list --tenant <slug>
 *
 * Keys are made in this checkout's database (own-database.ts), never in another's that happens
 * to listen nearby; the commands themselves are in tokens-command.ts.
 */
import './log-to-stderr.ts'
import { withOwnDatabase } from './own-database.ts'

await withOwnDatabase(async () => {
  const { runTokensCommand } = await import('./tokens-command.ts')
  await runTokensCommand()
})
