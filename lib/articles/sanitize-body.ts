import sanitizeHtml from 'sanitize-html'

// Article bodies are stored as sent (contract: Articles, Create) and made safe here, at
// rendering time, by one allow-list shared by every place that renders a body: the portal's
// preview today, the public site tomorrow. Anything not listed is dropped.
//
// Decisions:
// - Tags: the text structure TipTap's StarterKit produces, plus images, figures and simple
//   tables that wire copy carries. No script, style, iframe, object, embed, svg, math, form,
//   base, meta or link: they run code, load other documents or restyle the page.
// - Attributes: only the few below. No `on*` handlers, no `style` (CSS can overlay the site's
//   own UI or exfiltrate through url()), no `id`/`name` (DOM clobbering of the page's scripts),
//   no `class` except TipTap's `language-*` on code.
// - URLs: http, https, mailto and tel for links; http and https only for images. No
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
    'a', 'img', 'figure', 'figcaption',
    'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[a-z0-9+#-]{1,32}$/] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  // The content of a dropped script or style is code, never text for the reader.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'xmp', 'iframe', 'noembed', 'noframes', 'template', 'title'],
  disallowedTagsMode: 'discard',
  // style is not allowed at all, so there is nothing to parse.
  parseStyleAttributes: false,
  transformTags: {
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
