import { requestLogger } from './logger.ts'
import { metrics } from './metrics.ts'

export type ApiRequestObservation = {
  requestId: string
  method: string
  /** The route's template (routeTemplate), never the requested path. */
  route: string
  status: number
  durationMs: number
  tenantId?: string
  tokenId?: string
  problemCode?: string
}

/**
 * One log line and the request metrics for each answered /v1 request. Only the route template,
 * never the query string or body: those may carry secrets or article text.
 */
export function observeApiRequest(observation: ApiRequestObservation): void {
  const { route } = observation
  metrics.apiRequests.inc({ route, method: observation.method, status: String(observation.status) })
  metrics.apiDuration.observe({ route, method: observation.method }, observation.durationMs / 1000)
  if (observation.status === 429) metrics.rateLimitRejections.inc({ caller: observation.tokenId ? 'token' : 'unauthenticated' })
  requestLogger.info(
    {
      request_id: observation.requestId,
      tenant_id: observation.tenantId,
      token_id: observation.tokenId,
      method: observation.method,
      route,
      status: observation.status,
      duration_ms: Math.round(observation.durationMs * 10) / 10,
      ...(observation.problemCode && { problem: observation.problemCode }),
    },
    'api request',
  )
}
