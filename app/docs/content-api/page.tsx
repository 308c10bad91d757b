import type { Metadata } from 'next'
import { buildContentOpenApiDocument, contentOpenApiDocumentPath } from '@/lib/api/openapi/content-openapi-document'
import { ApiReference } from '@/components/api-reference/api-reference'

export const metadata: Metadata = {
  title: 'Content API reference',
  description: "The public content API of the newsroom content service: a newsroom's published articles, read with a content key.",
}

// Public, like /content/v1/openapi.json: a site's developers read it with nothing but a content key.
// It renders the same document the API serves, so the two cannot disagree.
export default function ContentApiReferencePage() {
  return <ApiReference document={buildContentOpenApiDocument()} documentPath={contentOpenApiDocumentPath} />
}
