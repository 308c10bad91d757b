import type { BenchRow } from './report.ts'

/**
 * The portal's server time for an editor (issue 31: the article list and the desk under
 * 300 ms at 1,000,000 articles): signs in as the newsroom's admin with its password, as the
 * sign-in form does, then loads each page and the tRPC reads its screen makes, one request at a
 * time, so each latency is the server's time for it on an otherwise idle connection.
 */
export async function measurePortalServerTime(appUrl: string, account: { email: string; password: string }, rounds = 30): Promise<BenchRow[]> {
  const cookies = new Map<string, string>()
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const at = pair!.indexOf('=')
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
  }
  const csrf = await fetch(`${appUrl}/api/auth/csrf`)
  remember(csrf)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const signIn = await fetch(`${appUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() },
    body: new URLSearchParams({ email: account.email, password: account.password, csrfToken, json: 'true' }),
  })
  remember(signIn)
  if (![...cookies.keys()].some((name) => name.endsWith('next-auth.session-token'))) throw new Error(`portal sign-in as ${account.email} failed: ${signIn.status}`)

  const trpc = (procedure: string, input?: unknown) =>
    `/api/trpc/${procedure}?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: input }))}`
  const reads: [string, string, Record<string, string>][] = [
    ['portal: GET / (the desk page, server render)', '/', {}],
    ['portal: desk.get (the desk’s lists)', trpc('desk.get'), { 'x-newsroom-portal': '1' }],
    ['portal: GET /articles (the article list page, server render)', '/articles', {}],
    ['portal: articles.list (the list’s first page)', trpc('articles.list', { limit: 50, offset: 0 }), { 'x-newsroom-portal': '1' }],
    ['portal: articles.filterOptions', trpc('articles.filterOptions'), { 'x-newsroom-portal': '1' }],
  ]
  const rows: BenchRow[] = []
  for (const [name, path, headers] of reads) {
    const latencies: number[] = []
    let errors = 0
    for (let round = 0; round < rounds + 3; round++) {
      const started = performance.now()
      const response = await fetch(`${appUrl}${path}`, { headers: { cookie: cookieHeader(), ...headers }, redirect: 'manual' })
      await response.arrayBuffer()
      // The first rounds warm the page's code and caches.
      if (round < 3) continue
      latencies.push(performance.now() - started)
      if (response.status !== 200) errors++
    }
    latencies.sort((a, b) => a - b)
    const at = (share: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]! * 10) / 10
    const mean = latencies.reduce((sum, value) => sum + value, 0) / latencies.length
    rows.push({ name, target: 'service', requests: latencies.length, rps: Math.round((1000 / mean) * 10) / 10, p50: at(0.5), p99: at(0.99), errors, peakRssMb: null })
  }
  return rows
}
