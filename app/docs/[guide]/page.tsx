import type { Metadata } from 'next'
import { notFound } from 'next/navigation'
import { guideSlugs, guideTitle, readGuide } from '@/components/guides/guide-files'
import { GuideView } from '@/components/guides/guide-view'

type Params = { params: Promise<{ guide: string }> }

// Every Markdown file of docs/, rendered at build time; any other name is a 404.
export const dynamicParams = false

export function generateStaticParams() {
  return guideSlugs().map((guide) => ({ guide }))
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { guide } = await params
  const markdown = readGuide(guide)
  return { title: markdown ? guideTitle(markdown, guide) : 'Not found' }
}

export default async function GuidePage({ params }: Params) {
  const { guide } = await params
  if (readGuide(guide) === undefined) notFound()
  return <GuideView slug={guide} />
}
