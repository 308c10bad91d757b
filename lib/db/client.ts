import { PrismaPg } from '@prisma/adapter-pg'
import { PrismaClient } from './generated/client.ts'
import { embeddedDatabaseUrl } from './embedded-config.ts'

export type Database = PrismaClient

function createDatabase(): Database {
  const connectionString = process.env.DATABASE_URL ?? embeddedDatabaseUrl()
  const adapter = new PrismaPg({
    connectionString,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    // A dead database must fail a request quickly (and visibly), not hang it.
    connectionTimeoutMillis: 5_000,
  })
  return new PrismaClient({ adapter })
}

// One client per process. Next's dev server re-evaluates modules on every edit, so in
// development the client is kept on globalThis instead of opening a new pool each time.
const globalForDb = globalThis as unknown as { newsroomDb?: Database }

export const db: Database = globalForDb.newsroomDb ?? createDatabase()
if (process.env.NODE_ENV === 'development') globalForDb.newsroomDb = db
