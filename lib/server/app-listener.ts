import type { IncomingMessage, ServerResponse } from 'node:http'
import { recordPeerAddress, sendWebResponse } from './node-http.ts'
import { isServedMethod, unservedMethodResponse } from './unserved-methods.ts'
import type { NodeListener } from './v1-listener.ts'

/**
 * Routes one request: /v1 and the public /content/v1 to their route files (which answer unserved methods with the route's
 * Allow), anything else to Next, except methods the app serves nowhere (TRACE…), which get a
 * 405 here: Next would fail building a web Request from them.
 */
export function appListener(serveV1: NodeListener, handleOther: (req: IncomingMessage, res: ServerResponse) => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    recordPeerAddress(req)
    const path = req.url ?? '/'
    if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1?') || path.startsWith('/content/v1/')) void serveV1(req, res)
    else if (!isServedMethod(req.method)) void sendWebResponse(req, res, unservedMethodResponse(req.method))
    else void handleOther(req, res)
  }
}
