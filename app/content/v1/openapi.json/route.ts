import { buildContentOpenApiDocument } from '@/lib/api/openapi/content-openapi-document'
import { servedOpenApiDocument } from '@/lib/api/openapi/served-document'
import { apiRoute } from '@/lib/api/with-api'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({ GET: servedOpenApiDocument(buildContentOpenApiDocument) })
