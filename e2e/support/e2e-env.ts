/**
 * Where the journeys of this Playwright worker run. Each worker has a production server and a
 * database of its own (playwright.config.ts starts one per worker, at E2E_PORT + the worker's
 * index), so journeys in parallel share no users, sessions, rate-limit windows, newsroom
 * settings or in-process queues. TEST_PARALLEL_INDEX is set by Playwright in each worker and
 * stays with its slot when a worker is replaced; elsewhere (the config in Playwright's main
 * process, start-server.ts, which is given its own E2E_PORT) it is absent and counts as 0.
 */
export const e2eBasePort = Number(process.env.E2E_PORT ?? 3100)
export const e2ePort = e2eBasePort + Number(process.env.TEST_PARALLEL_INDEX ?? 0)
export const e2eBaseUrl = `http://127.0.0.1:${e2ePort}`

/** The e2e database of this worker's server on the test PostgreSQL server, made fresh for every run. */
const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'

export const e2eDatabaseName = `newsroom_e2e_${e2ePort}`

export function e2eDatabaseUrl(): string {
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${e2eDatabaseName}`
  return url.toString()
}

export function e2eAdminDatabaseUrl(): string {
  return testDatabaseUrl
}
