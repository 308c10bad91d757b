import { buildOpenApiDocument } from '@/lib/api/openapi/openapi-document'
import { servedOpenApiDocument } from '@/lib/api/openapi/served-document'
import { apiRoute } from '@/lib/api/with-api'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({ GET: servedOpenApiDocument(buildOpenApiDocument) })
