import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'

// Passkeys must work on the embedded store (PGlite, `npm run dev`, no Redis): the migration
// applies there, a public key round-trips as bytea with its bigint counter, and a challenge is
// taken once even when two answers race for it (lib/auth/passkey-challenges.ts deletes to take).

let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let clients: pg.Client[] = []

beforeAll(async () => {
  embedded = await startMigratedEmbeddedDatabase()
  clients = [new pg.Client({ connectionString: embedded.url }), new pg.Client({ connectionString: embedded.url })]
  for (const client of clients) await client.connect()
}, setupBackstopMs)

afterAll(async () => {
  for (const client of clients) await client.end()
  await embedded?.stop()
})

describe('passkeys on the embedded store', () => {
  it('keeps a passkey\'s public key, counter and transports as written', async () => {
    const [client] = clients
    await client!.query(`INSERT INTO tenants (id, slug, name, public_site_url, updated_at) VALUES ('ten_pk', 'pk-embedded', 'Embedded', 'https://embedded.example', now())`)
    await client!.query(`INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at) VALUES ('usr_pk', 'ten_pk', 'pk@embedded.example', 'Pk', 'writer', 'x', now())`)
    const publicKey = randomBytes(77)
    await client!.query(
      `INSERT INTO passkeys (id, tenant_id, user_id, credential_id, public_key, counter, transports, device_type, name) VALUES ('pky_1', 'ten_pk', 'usr_pk', 'cred-1', $1, $2, $3, 'singleDevice', 'Laptop')`,
      [publicKey, '4294967295', ['internal', 'hybrid']],
    )
    const { rows } = await client!.query(`SELECT public_key, counter, transports FROM passkeys WHERE credential_id = 'cred-1'`)
    expect(rows).toEqual([{ public_key: publicKey, counter: '4294967295', transports: ['internal', 'hybrid'] }])
    await expect(client!.query(`INSERT INTO passkeys (id, tenant_id, user_id, credential_id, public_key, device_type, name) VALUES ('pky_2', 'ten_pk', 'usr_pk', 'cred-1', '\\x00', 'singleDevice', 'Copy')`)).rejects.toThrow(/passkeys_credential_id_key/)
  })

  it('lets exactly one of two racing answers take a challenge', async () => {
    await clients[0]!.query(`INSERT INTO webauthn_challenges (challenge, purpose, user_id, expires_at) VALUES ('race', 'sign_in', NULL, now() + interval '5 minutes')`)
    const take = (client: pg.Client) => client.query(`DELETE FROM webauthn_challenges WHERE challenge = 'race' AND purpose = 'sign_in' AND user_id IS NULL AND expires_at > now()`)
    const results = await Promise.all(clients.map(take))
    expect(results.map((result) => result.rowCount).sort()).toEqual([0, 1])
  })
})
