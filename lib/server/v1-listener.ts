import type { IncomingMessage, ServerResponse } from 'node:http'
import { internalErrorResponse, problemResponse } from '../api/problem.ts'
import { createId } from '../ids.ts'
import { invalidHostDetail, isValidHostHeader } from './host-header.ts'
import { sendWebResponse, toApiRequest } from './node-http.ts'
import { isServedMethod, unservedMethodResponse } from './unserved-methods.ts'
import { targetPath } from './request-path.ts'
import { operationalPaths, type V1Route } from './v1-route-modules.ts'
import { createV1Router } from './v1-router.ts'

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** A node:http listener that answers every request from the given /v1 route modules. */
export function createV1Listener(routes: V1Route[]): NodeListener {
  // The operational routes (/healthz, /readyz, /metrics) answer their own paths exactly as sent,
  // never a /v1 target that normalises to one (/v1/../metrics is /v1's 404, break76).
  const isOperational = (route: V1Route) => route.segments.length === 1 && operationalPaths.has(`/${route.segments[0]}`)
  const apiRoute = createV1Router(routes.filter((route) => !isOperational(route)))
  const operationalRoute = createV1Router(routes.filter(isOperational))
  return async (req, res) => {
    const route = operationalPaths.has(targetPath(req.url ?? '/')) ? operationalRoute : apiRoute
    try {
      if (!isValidHostHeader(req.headers.host ?? 'localhost')) {
        await sendWebResponse(req, res, problemResponse({ code: 'invalid_host', detail: invalidHostDetail }, createId('req')))
        return
      }
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`)
      if (!isServedMethod(req.method)) {
        // Allow names what this route takes: its OPTIONS answer (no token, no database).
        const options = await route({ method: 'OPTIONS', url: url.href, headers: { get: () => null }, body: null }, url)
        await sendWebResponse(req, res, unservedMethodResponse(req.method, options.headers.get('allow') ?? undefined))
        return
      }
      await sendWebResponse(req, res, await route(toApiRequest(req, url, res), url))
    } catch (error) {
      // The /v1 wrapper turns every failure into a problem; this only catches what escapes it
      // (a client gone mid-body, a response that cannot be written). Logged in the app's JSON
      // shape without the app's logger, which lives in the route modules' copy of lib/.
      const requestId = createId('req')
      process.stderr.write(JSON.stringify({ level: 50, time: Date.now(), request_id: requestId, err: { message: (error as Error).message, stack: (error as Error).stack }, msg: 'unexpected error outside the /v1 wrapper' }) + '\n')
      if (res.headersSent) res.destroy(error as Error)
      else await sendWebResponse(req, res, internalErrorResponse(requestId))
    }
  }
}
