import type { IncomingMessage, ServerResponse } from 'node:http'
import { invalidHostDetail, isValidHostHeader } from './host-header.ts'
import { recordPeerAddress, sendWebResponse } from './node-http.ts'
import { hasDecodablePath, targetPath, undecodablePathDetail } from './request-path.ts'
import { isServedMethod, unservedMethodResponse } from './unserved-methods.ts'
import type { NodeListener } from './v1-listener.ts'
import { directPortalRoutes, operationalPaths } from './v1-route-modules.ts'

/**
 * Routes one request: /v1, the public /content/v1 and the article page's poll and lease asks
 * (directPortalRoutes) to their route files (which answer unserved methods with the route's
 * Allow), anything else to Next, except methods the app serves nowhere (TRACE…), which get a
 * 405 here: Next would fail building a web Request from them. A request whose Host cannot be
 * part of a URL is a 400 before anything builds one: problem+json from /v1, plain text elsewhere.
 * So is a path Next could not decode (a malformed percent-escape), which Next answered with a 500.
 * /healthz, /readyz and /metrics (operationalPaths) pass the Host check as the portal's paths do,
 * then go to their route modules as /v1 does, never through Next (their exact paths decode).
 */
export function appListener(serveV1: NodeListener, handleOther: (req: IncomingMessage, res: ServerResponse) => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    recordPeerAddress(req)
    const path = req.url ?? '/'
    if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1?') || path.startsWith('/content/v1/') || path.startsWith(directPortalRoutes)) void serveV1(req, res)
    else if (!isValidHostHeader(req.headers.host ?? 'localhost')) void sendWebResponse(req, res, badRequest(invalidHostDetail))
    // Before the app-wide method check: the /v1 listener refuses a method with the route's own Allow (break77).
    else if (operationalPaths.has(targetPath(path))) void serveV1(req, res)
    else if (!isServedMethod(req.method)) void sendWebResponse(req, res, unservedMethodResponse(req.method))
    else if (!hasDecodablePath(path)) void sendWebResponse(req, res, badRequest(undecodablePathDetail))
    else void handleOther(req, res)
  }
}

const badRequest = (detail: string) => new Response(`${detail}\n`, { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
