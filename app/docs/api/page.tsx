import type { Metadata } from 'next'
import { buildOpenApiDocument } from '@/lib/api/openapi/openapi-document'
import { openApiDocumentPath } from '@/lib/api/openapi/reference-openapi'
import { ApiReference } from '@/components/api-reference/api-reference'

export const metadata: Metadata = {
  title: 'API reference',
  description: 'The /v1 REST API of the newsroom content service: operations, scopes, schemas, examples and errors.',
}

// Public, like /v1/openapi.json: integration developers read it before they have a key.
// It renders the same document the API serves, so the two cannot disagree.
export default function ApiReferencePage() {
  return <ApiReference document={buildOpenApiDocument()} documentPath={openApiDocumentPath} quickStart />
}
