import { timingSafeEqual } from 'node:crypto'
import { renderMetrics } from '@/lib/ops/metrics'

/**
 * Prometheus metrics, for the operator's scraper only: it must send `Authorization: Bearer
 * $METRICS_TOKEN`. Without METRICS_TOKEN set the endpoint does not exist (404), so a
 * deployment never exposes its traffic by accident.
 */
export const dynamic = 'force-dynamic'

function authorised(request: Request, expected: string): boolean {
  const given = Buffer.from(/^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '')
  const wanted = Buffer.from(expected)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

export async function GET(request: Request): Promise<Response> {
  const expected = process.env.METRICS_TOKEN
  if (!expected) return new Response('Not found\n', { status: 404, headers: { 'Content-Type': 'text/plain' } })
  if (!authorised(request, expected)) {
    return new Response('Send Authorization: Bearer <METRICS_TOKEN>.\n', { status: 401, headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="metrics"' } })
  }
  const { contentType, body } = await renderMetrics()
  return new Response(body, { headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } })
}
