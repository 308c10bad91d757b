import { PrismaPg } from '@prisma/adapter-pg'
import { PrismaClient } from './generated/client.ts'
import { embeddedDatabaseUrl } from './embedded-config.ts'
import { processSingleton } from '../process-singleton.ts'

export type Database = PrismaClient

function createDatabase(connectionString: string): Database {
  const adapter = new PrismaPg({
    connectionString,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    // A dead database must fail a request quickly (and visibly), not hang it.
    connectionTimeoutMillis: 5_000,
  })
  return new PrismaClient({ adapter })
}

// One pool per process and database, shared by every copy of this module (see process-singleton.ts).
const connectionString = process.env.DATABASE_URL ?? embeddedDatabaseUrl()
export const db: Database = processSingleton(`db ${connectionString}`, () => createDatabase(connectionString))
