/** Where the tests find PostgreSQL and Redis; both default to this machine's local servers. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'
export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
// One template per test run (vitest.config.ts names the run), so runs side by side do not
// drop each other's template.
export const templateDatabaseName = `newsroom_test_template_${process.env.NEWSROOM_TEST_RUN ?? 'default'}`

/** The URL of another database on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${name}`
  return url.toString()
}
