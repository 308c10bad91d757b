import type { Metadata } from 'next'
import { DocsIndex } from '@/components/guides/guide-view'

export const metadata: Metadata = {
  title: 'Documentation',
  description: 'The guides of the newsroom content service, one per reader, and its API references.',
}

// Public like /docs/api: the guides are the repository's docs/ files, rendered.
export default function DocsIndexPage() {
  return <DocsIndex />
}
