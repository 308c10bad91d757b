/**
 * npm run newsroom -- create --slug <slug> --name <name> --site <https://…> --admin <email> [--admin-name <name>] [--plan standard|enterprise]
 * npm run newsroom -- export --tenant <slug> > newsroom.ndjson
 * npm run newsroom -- import --tenant <slug> < newsroom.ndjson
 *
 * In this checkout's database (own-database.ts) or DATABASE_URL's; the commands themselves are
 * in newsroom-command.ts.
 */
import './log-to-stderr.ts'
import { withOwnDatabase } from './own-database.ts'

await withOwnDatabase(async () => {
  const { runNewsroomCommand } = await import('./newsroom-command.ts')
  await runNewsroomCommand()
})
