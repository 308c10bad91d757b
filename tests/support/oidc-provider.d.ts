// The few parts of oidc-provider (which ships no types) the test identity provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  type Account = { accountId: string; claims: () => Promise<Record<string, unknown>> }

  export default class Provider {
    constructor(issuer: string, configuration: {
      clients: { client_id: string; client_secret: string; redirect_uris: string[]; grant_types: string[]; response_types: string[] }[]
      claims: Record<string, string[]>
      conformIdTokenClaims: boolean
      cookies: { keys: string[] }
      features: { devInteractions: { enabled: boolean } }
      findAccount: (context: unknown, sub: string) => Promise<Account | undefined>
    })
    on(event: 'server_error', listener: (context: unknown, error: Error) => void): this
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}
