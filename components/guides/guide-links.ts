/**
 * Where a link of a guide goes in the app. The Markdown is written for GitHub (links between
 * files of docs/); the app serves those files at /docs/<name>, and docs/screenshots beside them.
 * A link to another file of the repository is not served: it is shown as its path.
 */
export type GuideLink = { kind: 'href'; href: string } | { kind: 'path'; path: string }

export function guideLink(target: string, from: 'docs' | 'root' = 'docs'): GuideLink {
  if (/^(#|https?:|mailto:)/.test(target)) return { kind: 'href', href: target }
  const relative = from === 'root' ? target.replace(/^docs\//, '') : target
  if (from === 'root' && relative === target) return { kind: 'path', path: target }
  const guide = /^([a-z0-9][a-z0-9-]*)\.md(#.*)?$/.exec(relative)
  if (guide) return { kind: 'href', href: `/docs/${guide[1]}${guide[2] ?? ''}` }
  const screenshot = /^screenshots\/([a-z0-9-]+\.png)$/.exec(relative)
  if (screenshot) return { kind: 'href', href: `/docs/screenshots/${screenshot[1]}` }
  return { kind: 'path', path: relative.replace(/^(\.\.\/)+/, '') }
}
