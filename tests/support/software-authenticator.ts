import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

// A WebAuthn authenticator in software, so the tests hand @simplewebauthn/server real answers
// (ES256 keys, "none" attestation, CBOR and signatures made here) rather than mocking it.

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length])
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length])
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff])
  const out = Buffer.alloc(5)
  out[0] = (major << 5) | 26
  out.writeUInt32BE(length, 1)
  return out
}

/** The few CBOR types WebAuthn's attestation object and COSE keys use. */
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)])
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])])
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url')
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest()

export type AuthenticatorOptions = { origin?: string; rpId?: string; userVerified?: boolean }

/** One passkey held by one authenticator: create it, then sign in with it as often as wanted. */
export class SoftwarePasskey {
  readonly credentialId = randomBytes(16)
  private readonly privateKey: KeyObject
  private readonly publicJwk: { x: string; y: string }
  counter = 0
  userHandle = ''

  constructor(private readonly defaults: { origin: string; rpId: string }) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.privateKey = privateKey
    this.publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string }
  }

  get id(): string {
    return b64url(this.credentialId)
  }

  private authenticatorData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(this.counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])])
  }

  /** The answer to `navigator.credentials.create` for the server's options (as JSON). */
  register(options: { challenge: string; user: { id: string } }, overrides: AuthenticatorOptions = {}) {
    const { origin, rpId } = { ...this.defaults, ...overrides }
    this.userHandle = options.user.id
    const coseKey = new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.publicJwk.x, 'base64url')], [-3, Buffer.from(this.publicJwk.y, 'base64url')]])
    const length = Buffer.alloc(2)
    length.writeUInt16BE(this.credentialId.length)
    const attested = Buffer.concat([Buffer.alloc(16), length, this.credentialId, cbor(coseKey)])
    // User present, user verified (unless told otherwise), attested credential data.
    const flags = 0x01 | (overrides.userVerified === false ? 0 : 0x04) | 0x40
    const authData = this.authenticatorData(rpId, flags, attested)
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false })
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]))),
        transports: ['internal'],
      },
    }
  }

  /** The answer to `navigator.credentials.get`; the signature counter rises first, as a real authenticator's does. */
  assert(options: { challenge: string }, overrides: AuthenticatorOptions & { counter?: number } = {}) {
    const { origin, rpId } = { ...this.defaults, ...overrides }
    this.counter = overrides.counter ?? this.counter + 1
    const authData = this.authenticatorData(rpId, 0x01 | (overrides.userVerified === false ? 0 : 0x04))
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }))
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey)
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: this.userHandle || undefined },
    }
  }
}
