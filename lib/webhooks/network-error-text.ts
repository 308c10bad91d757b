import { UnsafeUrlError } from './url-safety.ts'

/**
 * A failed connection in words for the person reading the deliveries log, not Node's
 * `connect ECONNREFUSED 127.0.0.1:9`. Unknown codes keep Node's message, after a plain lead-in.
 */
export function networkErrorText(error: Error & { code?: string; address?: string; port?: number }, target: { host: string; port: string }): string {
  const where = `${error.address ?? target.host}:${error.port ?? target.port}`
  switch (error.code) {
    case 'ECONNREFUSED':
      return `Connection refused by ${where}.`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return error.code === 'ENOTFOUND' ? `The host name ${target.host} could not be found (DNS).` : `The host name ${target.host} could not be resolved right now (DNS lookup failed temporarily).`
    case 'ECONNRESET':
      return `The connection to ${where} was closed before a complete response arrived.`
    case 'EPIPE':
      return `The connection to ${where} was closed while the request was being sent.`
    case 'ETIMEDOUT':
      return `The connection to ${where} timed out.`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `No network route to ${where}.`
    case 'CERT_HAS_EXPIRED':
      return `TLS certificate expired (${target.host}).`
    case 'CERT_NOT_YET_VALID':
      return `TLS certificate is not valid yet (${target.host}).`
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return `TLS certificate is self-signed, so it is not trusted (${target.host}).`
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `TLS certificate is not issued by a trusted authority, or the server does not send its intermediate certificates (${target.host}).`
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate is not valid for ${target.host} (it names other hosts).`
    case 'CERT_REVOKED':
      return `TLS certificate was revoked (${target.host}).`
    case 'EPROTO':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return `TLS handshake with ${where} failed: is it serving https on that port?`
  }
  if (error instanceof UnsafeUrlError) return error.message
  return `The request to ${where} failed: ${error.message}`
}
