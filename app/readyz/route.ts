import { checkReadiness } from '@/lib/ops/readiness'

/**
 * Readiness: 200 when the database (and Redis, if configured) answer, else 503 naming what is
 * down. No auth, like /healthz: it says which dependency failed, never a secret or a row.
 */
export const dynamic = 'force-dynamic'

export async function GET(): Promise<Response> {
  const readiness = await checkReadiness()
  return Response.json(
    { status: readiness.ready ? 'ready' : 'unavailable', ...readiness },
    { status: readiness.ready ? 200 : 503, headers: { 'Cache-Control': 'no-store', ...(readiness.ready ? {} : { 'Retry-After': '5' }) } },
  )
}
