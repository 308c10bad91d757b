/**
 * The release's migration step as another script runs it (scripts/cluster.ts, a deploy tool):
 * `npm run db:migrate` in a child process with the given environment (DATABASE_URL), which
 * resolves once the schema and data migrations are applied, under the migration lock
 * (schema-migrations.ts). Instances then start with MIGRATE_ON_START=false.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')

export function runMigrationStep(env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/db-migrate.ts')], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the migration step (npm run db:migrate) exited with ${code}`))))
  })
}
