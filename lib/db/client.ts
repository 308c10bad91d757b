import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaClient } from './generated/client.ts'
import { embeddedDatabaseUrl } from './embedded-config.ts'
import { processSingleton } from '../process-singleton.ts'
import { hearConnectionErrors } from './heard-errors.ts'
import { installFastTypeParsers } from './fast-type-parsers.ts'
import { loadQueryCompilerFromFile } from './query-compiler-wasm.ts'

export type Database = PrismaClient

type Connections = { db: Database; pool: pg.Pool }

function connect(connectionString: string): Connections {
  // Every row's dates and text arrays, read by hand where pg would allocate a regular expression match (fast-type-parsers.ts).
  installFastTypeParsers()
  const pool = new pg.Pool({
    connectionString,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    // A dead database must fail a request quickly (and visibly), not hang it.
    connectionTimeoutMillis: 5_000,
  })
  // An idle connection the server drops (restart, failover) is replaced on next use; without a
  // listener pg would throw the error and end the process.
  pool.on('error', (error) => console.warn(`[db] an idle connection failed: ${error.message}`))
  // A checked-out connection the server cuts must not end the process either.
  hearConnectionErrors(pool)
  const adapter = new PrismaPg(pool, { disposeExternalPool: true })
  const db = new PrismaClient({ adapter })
  // Before its first query, which loads the query compiler (query-compiler-wasm.ts says why).
  loadQueryCompilerFromFile(db)
  return { db, pool }
}

// One pool per process and database, shared by every copy of this module (see process-singleton.ts).
const connectionString = process.env.DATABASE_URL ?? embeddedDatabaseUrl()
const connections = processSingleton(`db ${connectionString}`, () => connect(connectionString))

export const db: Database = connections.db
/**
 * Prisma's own connection pool, for the few hot reads that go around Prisma's row mapping
 * (lib/tenancy/tenant-sql.ts) and the request log's batched appends. Not for changes to content:
 * those go through Prisma and its transactions.
 */
export const sqlPool: pg.Pool = connections.pool
