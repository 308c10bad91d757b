import { buildContentOpenApiDocument } from '@/lib/api/openapi/content-openapi-document'
import { servedOpenApiDocument } from '@/lib/api/openapi/served-document'
import { contentRoute } from '@/lib/api/content-route'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = contentRoute({ GET: servedOpenApiDocument(buildContentOpenApiDocument) })
