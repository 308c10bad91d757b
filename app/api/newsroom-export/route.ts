import { getPortalActor, getPortalSessionState } from '@/lib/auth/session'
import { DomainError } from '@/lib/errors'
import { assertMayExport, exportNewsroom } from '@/lib/portability/export-newsroom'

/**
 * The newsroom's archive for its admins (Settings → Export): the same stream as `npm run
 * newsroom -- export` (lib/portability), sent as it is produced, never held whole in memory.
 * The export is audited once the last line has gone out.
 */
export const dynamic = 'force-dynamic'

export async function GET(): Promise<Response> {
  const actor = await getPortalActor()
  if (!actor) return new Response('Sign in first.\n', { status: 401, headers: { 'Content-Type': 'text/plain' } })
  const channel = { portalSession: await getPortalSessionState() }
  try {
    assertMayExport(actor, channel)
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
    return new Response(`${error.message}\n`, { status: 403, headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' } })
  }
  const lines = exportNewsroom(actor, channel)
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await lines.next()
        if (done) controller.close()
        else controller.enqueue(encoder.encode(value))
      } catch (error) {
        // Cut short: the archive has no end line, and an import refuses it.
        controller.error(error)
      }
    },
    async cancel() {
      await lines.return(undefined)
    },
  })
  const day = new Date().toISOString().slice(0, 10)
  return new Response(body, {
    headers: {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${actor.tenant.slug}-${day}.ndjson"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
