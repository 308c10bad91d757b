import { describe, expect, it } from 'vitest'
import { sanitizeBody } from './sanitize-body.ts'

// Each case: an attack seen in the wild, and what must be left of it.
describe('sanitizeBody removes what could run or restyle', () => {
  it('drops event handlers and keeps the harmless rest', () => {
    expect(sanitizeBody('<img src=x onerror=alert(1)>')).toBe('')
    expect(sanitizeBody('<p onclick="steal()" onmouseover=x>Hi</p>')).toBe('<p>Hi</p>')
  })

  it('drops script elements together with their code', () => {
    expect(sanitizeBody('<p>Before</p><script>alert(1)</script><p>After</p>')).toBe('<p>Before</p><p>After</p>')
    expect(sanitizeBody('<SCRIPT SRC=//evil.example/x.js></SCRIPT>')).toBe('')
    expect(sanitizeBody('<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>')).not.toMatch(/onerror/i)
  })

  it('drops javascript:, vbscript: and data: links, however they are spelt', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'jav&#x09;ascript:alert(1)',
      '&#106;avascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    ]) {
      const out = sanitizeBody(`<a href="${href}">x</a>`)
      expect(out, href).toBe('<a>x</a>')
    }
  })

  it('drops SVG and MathML along with their handlers', () => {
    expect(sanitizeBody('<svg onload=alert(1)><circle r="4"/></svg>')).toBe('')
    expect(sanitizeBody('<svg><animate onbegin=alert(1) attributeName=x dur=1s>')).toBe('')
    expect(sanitizeBody('<math><mi xlink:href="javascript:alert(1)">x</mi></math>')).toBe('x')
  })

  it('drops frames, objects, embeds, forms, base and meta', () => {
    expect(sanitizeBody('<iframe src="https://evil.example"></iframe>')).toBe('')
    expect(sanitizeBody('<iframe srcdoc="<script>alert(1)</script>">fallback</iframe>')).toBe('')
    expect(sanitizeBody('<object data="x.swf"></object><embed src="x.swf">')).toBe('')
    expect(sanitizeBody('<form action="javascript:alert(1)"><input name=a><button>Go</button></form>')).toBe('Go')
    expect(sanitizeBody('<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=javascript:alert(1)">')).toBe('')
    expect(sanitizeBody('<link rel=stylesheet href="https://evil.example/x.css">')).toBe('')
  })

  it('drops style elements and style attributes', () => {
    expect(sanitizeBody('<style>body{display:none}</style><p>Text</p>')).toBe('<p>Text</p>')
    expect(sanitizeBody('<p style="position:fixed;inset:0;background:url(https://evil.example/x)">Text</p>')).toBe('<p>Text</p>')
  })

  it('drops ids, names and classes that could clobber the page, keeping code languages', () => {
    expect(sanitizeBody('<p id="root" class="admin" name="x">T</p>')).toBe('<p>T</p>')
    expect(sanitizeBody('<pre><code class="language-js evil">x</code></pre>')).toBe('<pre><code class="language-js">x</code></pre>')
  })

  it('keeps images only as media library references: no <img> of any address', () => {
    expect(sanitizeBody('<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" alt="a">')).toBe('')
    expect(sanitizeBody('<img src="//evil.example/x.png">')).toBe('')
    expect(sanitizeBody('<img src="https://cdn.example/a.jpg" alt="A harbour" width="640">')).toBe('')
    expect(sanitizeBody('<figure data-media-id="med_0mhx2k1s9q3v8w4t6y1z2a3b4c" onclick="x" class="big"></figure>')).toBe('<figure data-media-id="med_0mhx2k1s9q3v8w4t6y1z2a3b4c"></figure>')
    expect(sanitizeBody('<figure data-media-id="javascript:alert(1)"><img src="https://cdn.example/a.jpg"></figure>')).toBe('<figure></figure>')
  })

  it('escapes text that looks like markup instead of passing it through', () => {
    expect(sanitizeBody('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>')
    expect(sanitizeBody('<xmp><img src=x onerror=alert(1)></xmp>')).toBe('')
  })
})

describe('sanitizeBody keeps what an editor writes', () => {
  it('keeps TipTap StarterKit output unchanged', () => {
    const html =
      '<h2>Heading</h2><p><strong>Bold</strong>, <em>italic</em>, <u>underlined</u>, <s>struck</s> and <code>code</code>.</p>' +
      '<ul><li><p>One</p></li></ul><ol start="3"><li><p>Three</p></li></ol><blockquote><p>Quote</p></blockquote>' +
      '<pre><code class="language-ts">const a = 1</code></pre><hr /><p>Line<br />break</p>'
    expect(sanitizeBody(html)).toBe(html)
  })

  it('keeps ordinary links and marks new-tab links noopener', () => {
    expect(sanitizeBody('<a href="https://example.com/a?b=c" title="T">x</a>')).toBe('<a href="https://example.com/a?b=c" title="T">x</a>')
    expect(sanitizeBody('<a href="mailto:desk@example.com">mail</a>')).toBe('<a href="mailto:desk@example.com">mail</a>')
    expect(sanitizeBody('<a href="/articles/x">rel</a>')).toBe('<a href="/articles/x">rel</a>')
    expect(sanitizeBody('<a href="https://example.com" target="_blank" rel="opener">x</a>')).toBe(
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">x</a>',
    )
    expect(sanitizeBody('<a href="https://example.com" target="_top">x</a>')).toBe('<a href="https://example.com">x</a>')
  })

  it('keeps simple tables and figures', () => {
    const html = '<figure data-media-id="med_0mhx2k1s9q3v8w4t6y1z2a3b4c"><figcaption>Caption</figcaption></figure>' +
      '<table><thead><tr><th scope="col">Team</th></tr></thead><tbody><tr><td colspan="2">Rovers</td></tr></tbody></table>'
    expect(sanitizeBody(html)).toBe(html)
  })

  it('gives an empty string for no body', () => {
    expect(sanitizeBody(null)).toBe('')
    expect(sanitizeBody(undefined)).toBe('')
    expect(sanitizeBody('')).toBe('')
  })
})

describe('sanitizeBodyReporting names what it removed', () => {
  it('lists removed tags, attributes and URL schemes once each, in document order', async () => {
    const { sanitizeBodyReporting } = await import('./sanitize-body.ts')
    expect(sanitizeBodyReporting('<p style="x" onclick=a>t</p><script>1</script><script>2</script><a href=" java\tscript:x">l</a><img src="http://cdn.example/a.jpg"><figure data-media-id="x"></figure>')).toEqual({
      html: '<p>t</p><a>l</a><figure></figure>',
      removed: ['style attribute', 'onclick attribute', '<script>', 'javascript: URL in href', '<img>', 'data-media-id attribute'],
    })
  })

  it('reports nothing for a clean body, even when it is normalised', async () => {
    const { sanitizeBodyReporting } = await import('./sanitize-body.ts')
    expect(sanitizeBodyReporting('<p>Hi<br>there <a href="https://x.example" target="_blank" rel="opener">x</a></p>').removed).toEqual([])
  })

  it('is idempotent, so stored bodies stay as they are when sanitised again', () => {
    const once = sanitizeBody('<p onclick=x>a<img src=x onerror=y><br></p><script>z</script>')
    expect(sanitizeBody(once)).toBe(once)
  })
})
