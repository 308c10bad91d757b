// Read when this module loads: a process's NODE_ENV does not change while it runs.
const production = process.env.NODE_ENV === 'production'
const settled = new Map<string, string | undefined>()

/**
 * An environment setting read on every request (where Redis is, whether a replica is set, the
 * response cache's switch). process.env is a native lookup, not a plain object: a cached GET
 * read a dozen settings, 3 % of its CPU (issue 50's profile). A production server's environment
 * does not change under it, so there each is read once; elsewhere (tests point a running process
 * at another Redis or replica) each read asks the environment again.
 */
export function hotSetting(name: string): string | undefined {
  if (!production) return process.env[name]
  if (settled.has(name)) return settled.get(name)
  const value = process.env[name]
  settled.set(name, value)
  return value
}
