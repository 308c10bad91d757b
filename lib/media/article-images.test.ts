import { describe, expect, it } from 'vitest'
import { sanitizeBody } from '../articles/sanitize-body.ts'
import { bodyFigureIds, imageOrder } from './article-images.ts'

describe('bodyFigureIds', () => {
  it('reads the figures of a sanitised body, each once, in reading order', () => {
    const body = sanitizeBody('<figure data-media-id="med_0mx1o8stozj9t7tatnkjrqyev"><figcaption>b</figcaption></figure><p>x</p><figure data-media-id="med_0mx1o8tnx73j1qloliu117wbn"></figure><figure data-media-id="med_0mx1o8stozj9t7tatnkjrqyev"></figure>')
    expect(bodyFigureIds(body)).toEqual(['med_0mx1o8stozj9t7tatnkjrqyev', 'med_0mx1o8tnx73j1qloliu117wbn'])
  })
  it('does not take text quoting the markup (a how-to, a correction) for an image', () => {
    const body = sanitizeBody('<p>Write <code>data-media-id="med_0mx1o8tw8operne1vzi5jz7hn"</code> in the figure, as data-media-id="med_0mx1o8tnx73j1qloliu117wbnlso" shows.</p>')
    expect(body).toContain('data-media-id="med_0mx1o8tw8operne1vzi5jz7hn"')
    expect(bodyFigureIds(body)).toEqual([])
    expect(imageOrder({ featuredMediaId: null, body })).toEqual([])
  })
})
