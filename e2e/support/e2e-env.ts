/** The e2e suite's own database on the test PostgreSQL server, made fresh for every run. */
const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'

export const e2eDatabaseName = `newsroom_e2e_${process.env.E2E_PORT ?? '3100'}`

export function e2eDatabaseUrl(): string {
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${e2eDatabaseName}`
  return url.toString()
}

export function e2eAdminDatabaseUrl(): string {
  return testDatabaseUrl
}
