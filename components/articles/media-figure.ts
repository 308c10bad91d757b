import { Node } from '@tiptap/react'

/**
 * A media library image in the body: `<figure data-media-id="med_…">`, the only image markup the
 * body keeps (lib/articles/sanitize-body.ts). StarterKit knows no figure and would drop it, so
 * loading a body with images and saving it would lose them; this node keeps them, as an atom
 * (moved and deleted whole), shown in the editor with the portal's preview of the image.
 */
export const MediaFigure = Node.create({
  name: 'mediaFigure',
  group: 'block',
  atom: true,
  draggable: true,
  selectable: true,
  addAttributes() {
    return {
      mediaId: { default: null, parseHTML: (element) => element.getAttribute('data-media-id'), renderHTML: (attributes) => ({ 'data-media-id': attributes.mediaId as string }) },
      caption: { default: '', parseHTML: (element) => element.querySelector('figcaption')?.textContent ?? '', renderHTML: () => ({}) },
    }
  },
  parseHTML() {
    return [{ tag: 'figure[data-media-id]' }]
  },
  renderHTML({ node, HTMLAttributes }) {
    const caption = node.attrs.caption as string
    return caption ? ['figure', HTMLAttributes, ['figcaption', caption]] : ['figure', HTMLAttributes]
  },
  addNodeView() {
    return ({ node }) => {
      const mediaId = String(node.attrs.mediaId)
      const dom = document.createElement('figure')
      dom.setAttribute('data-media-id', mediaId)
      dom.setAttribute('data-testid', 'body-figure')
      dom.style.margin = '0.75rem 0'
      const given = (node.attrs.caption as string) || ''
      const image = document.createElement('img')
      image.src = `/api/media/${encodeURIComponent(mediaId)}/preview?w=640`
      // Screen readers hear the caption (the figure's own words), not an id.
      image.alt = given ? `Image: ${given}` : 'Image from the media library, without a caption'
      image.style.maxWidth = '100%'
      image.style.maxHeight = '16rem'
      const caption = document.createElement('figcaption')
      caption.textContent = given || 'No caption'
      caption.style.fontSize = '0.85rem'
      caption.style.color = '#555'
      // The preview is asked for again on each use (its route answers 304 while current), so an
      // image deleted from the library meanwhile says so here instead of showing a stale copy.
      image.addEventListener('error', () => {
        void fetch(image.src, { cache: 'no-store' }).then(
          (answer) => answer.status === 404 && showNote(`This image (${mediaId}) is no longer in the media library. Remove it, or insert another, before publishing.`),
          () => showNote('The image could not be loaded; check the connection.'),
        )
      })
      const showNote = (text: string) => {
        image.remove()
        const note = document.createElement('p')
        note.setAttribute('role', 'note')
        note.dataset.testid = 'body-figure-missing'
        note.className = 'alert error'
        note.textContent = text
        dom.prepend(note)
      }
      dom.append(image, caption)
      return { dom }
    }
  },
})
