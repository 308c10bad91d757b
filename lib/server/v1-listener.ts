import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorResponse } from '../api/with-api.ts'
import { createId } from '../ids.ts'
import { sendWebResponse, toWebRequest } from './node-http.ts'
import { isServedMethod, unservedMethodResponse } from './unserved-methods.ts'
import { loadV1Router } from './v1-router.ts'

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** A node:http listener that answers every request from the /v1 route files. */
export async function createV1Listener(): Promise<NodeListener> {
  const route = await loadV1Router()
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`)
      if (!isServedMethod(req.method)) {
        // Allow names what this route takes: its OPTIONS answer (no token, no database).
        const options = await route(new Request(url, { method: 'OPTIONS' }))
        await sendWebResponse(req, res, unservedMethodResponse(req.method, options.headers.get('allow') ?? undefined))
        return
      }
      await sendWebResponse(req, res, await route(toWebRequest(req, url)))
    } catch (error) {
      // The /v1 wrapper turns every failure into a problem; this only catches what escapes it.
      if (res.headersSent) res.destroy(error as Error)
      else await sendWebResponse(req, res, errorResponse(error, createId('req')))
    }
  }
}
