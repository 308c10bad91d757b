/** Liveness for a load balancer or orchestrator: the process answers. No dependencies, no auth. */
export const dynamic = 'force-dynamic'

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } })
}
