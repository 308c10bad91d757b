import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/** A person the test identity provider knows, by the login typed on its own login page. */
export type IdpAccount = { email: string; email_verified: boolean; name: string }

export type TestIdentityProvider = {
  issuer: string
  /** People by login; tests add to it as they go. */
  accounts: Map<string, IdpAccount>
  close(): Promise<void>
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package, the certified implementation) on
 * 127.0.0.1, with its built-in development login and consent pages. Each client is registered
 * for `redirectUri` with a secret, as a newsroom's IT registers the portal.
 */
export async function startTestIdentityProvider(clients: { clientId: string; clientSecret: string; redirectUris: string[] }[]): Promise<TestIdentityProvider> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const accounts = new Map<string, IdpAccount>()
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The claims go into the ID token, as the big providers put them when the scopes ask.
    conformIdTokenClaims: false,
    cookies: { keys: ['test-identity-provider-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub)
      if (!account) return undefined
      return { accountId: sub, claims: async () => ({ sub, ...account }) }
    },
  })
  // The library warns once for the development key and pages it is configured to use here.
  provider.on('server_error', (_ctx, error) => console.error('[test identity provider]', error))
  server.on('request', provider.callback())
  return {
    issuer,
    accounts,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}
