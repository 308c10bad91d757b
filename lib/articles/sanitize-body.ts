import sanitizeHtml from 'sanitize-html'
import { imageSchemes, linkSchemes as allowedSchemes, urlRefusal } from './body-url-rule'
import { isLibraryMediaId } from '../media/media-ids.ts'

// Article bodies are sanitised on write (every write path stores cleanBody's output, see
// stored-body.ts) by this one allow-list, which the portal's preview also renders through, so
// what is stored is what every reader and webhook receiver gets. Anything not listed is dropped.
//
// Decisions:
// - Tags: the text structure TipTap's StarterKit produces, plus figures and simple tables that
//   wire copy carries. Images only as media library references, <figure data-media-id="med_…">
//   (issue 47): an <img> of any address is dropped, so every published picture has passed the
//   library's rights rules, alt text included, and carries no metadata of its own. No script, style, iframe, object, embed, svg, math, form,
//   base, meta or link: they run code, load other documents or restyle the page.
// - Attributes: only the few below. No `on*` handlers, no `style` (CSS can overlay the site's
//   own UI or exfiltrate through url()), no `id`/`name` (DOM clobbering of the page's scripts),
//   no `class` except TipTap's `language-*` on code.
// - Embeds (iframe, object, embed, script-based widgets) are not allowed: each loads and runs
//   another origin's document inside every site that renders the body, and which providers
//   to trust is each site's decision. An embed travels as a plain link to the post or video
//   (<a href="https://…">), which a site may turn into a player through oEmbed.
// - URLs: http, https, mailto and tel for links; https only for images (an http image is
//   mixed content on every https site, and a tracking pixel in the clear). No
//   `javascript:`, `vbscript:` or `data:` anywhere, data images included: a data: image cannot
//   run script in an <img>, but it smuggles megabytes into the body and bypasses the media
//   library, so images must be addresses. Protocol-relative URLs are refused (they follow
//   the page's scheme, which a preview and the public site do not share). Relative URLs stay.
// - Links that open a new tab get rel="noopener noreferrer nofollow", so the opened page
//   cannot reach back through window.opener, and we vouch for no one.


const options: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code',
    'ul', 'ol', 'li', 'strong', 'b', 'em', 'i', 'u', 's', 'sub', 'sup', 'mark', 'small',
    'a', 'figure', 'figcaption',
    'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    // Images only as media library references (lib/media): the site renders them from the
    // content API's `images`, with alt text, credit and renditions the library keeps.
    figure: ['data-media-id'],
    ol: ['start'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[a-z0-9+#-]{1,32}$/] },
  allowedSchemes,
  allowedSchemesByTag: { img: imageSchemes },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  // The content of a dropped script or style is code, never text for the reader.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'xmp', 'iframe', 'noembed', 'noframes', 'template', 'title'],
  disallowedTagsMode: 'discard',
  // style is not allowed at all, so there is nothing to parse.
  parseStyleAttributes: false,
  transformTags: {
    // A figure keeps a library reference only when it is one (med_ and an id's letters and digits).
    figure: (tagName, { 'data-media-id': mediaId }) => ({ tagName, attribs: (mediaId && isLibraryMediaId(mediaId) ? { 'data-media-id': mediaId } : {}) as Record<string, string> }),
    // target may only open a new tab, and rel is ours to set, never the author's.
    a: (tagName, { rel: _rel, target, ...attribs }) =>
      target === '_blank' ? { tagName, attribs: { ...attribs, target, rel: 'noopener noreferrer nofollow' } } : { tagName, attribs },
  },
}

/**
 * An article body as HTML that is safe to insert into a page: the allow-list above, and
 * nothing else. Null and empty bodies give an empty string.
 */
export function sanitizeBody(html: string | null | undefined): string {
  if (!html) return ''
  return sanitizeHtml(html, options)
}

/**
 * The sanitised body and, for a person, what the allow-list took out of it (e.g. "<script>",
 * "onerror attribute", "javascript: URL"), each named once. Normalising what stays (quoting,
 * `<br>` to `<br />`) is not a removal.
 */
export function sanitizeBodyReporting(html: string): { html: string; removed: string[] } {
  const removed = new Set<string>()
  const out = sanitizeHtml(html, { ...options, onOpenTag: (tag, attribs) => noteRemovals(tag.toLowerCase(), attribs, removed) })
  return { html: out, removed: [...removed] }
}

const allowedTags: ReadonlySet<string> = new Set(options.allowedTags as string[])
const allowedAttributes = options.allowedAttributes as Record<string, string[]>
// Ours to set or drop without it being a loss worth reporting (see transformTags).
const silentlyReplaced: Record<string, string[]> = { a: ['rel', 'target'] }

function noteRemovals(tag: string, attribs: Record<string, string>, removed: Set<string>): void {
  if (!allowedTags.has(tag)) {
    removed.add(`<${tag}>`)
    return
  }
  const allowed = allowedAttributes[tag] ?? []
  for (const [rawName, value] of Object.entries(attribs)) {
    const name = rawName.toLowerCase()
    if (silentlyReplaced[tag]?.includes(name)) continue
    if (!allowed.includes(name)) {
      removed.add(`${name} attribute`)
      continue
    }
    if (name === 'data-media-id' && !isLibraryMediaId(value)) removed.add('data-media-id attribute')
    if (name === 'class' && !value.split(/\s+/).every((c) => c === '' || /^language-[a-z0-9+#-]{1,32}$/.test(c))) removed.add('class attribute')
    if (name === 'href' || name === 'src') {
      const refusal = urlRefusal(value, tag === 'img' ? imageSchemes : allowedSchemes)
      if (refusal) removed.add(`${refusal} in ${name}`)
    }
  }
}

