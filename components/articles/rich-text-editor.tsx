'use client'

import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'
import { useEffect, useId, useImperativeHandle, useRef, useState, type FormEvent, type Ref } from 'react'
import { linkAddressProblem } from '@/lib/articles/body-url-rule'
import { MediaPicker } from '@/components/media/media-picker'
import { MediaFigure } from './media-figure'
import styles from './rich-text-editor.module.css'

type Props = {
  id: string
  value: string
  onChange: (html: string) => void
  onBlur: () => void
  labelId: string
  describedBy?: string
  invalid: boolean
  readOnly: boolean
  /** Lets react-hook-form focus the body when it is the first field with an error. */
  fieldRef: Ref<{ focus: () => void }>
}

/**
 * The body: TipTap producing HTML, or the HTML source itself for what the toolbar cannot
 * make. What is saved goes through the same allow-list on write (sanitizeBody), so what is stored is safe to render.
 */
export function RichTextEditor({ id, value, onChange, onBlur, labelId, describedBy, invalid, readOnly, fieldRef }: Props) {
  const [mode, setMode] = useState<'rich' | 'source'>('rich')
  const sourceRef = useRef<HTMLTextAreaElement>(null)
  // The HTML this editor last reported, to tell our own updates from a reset of the form.
  const reported = useRef(value)

  const attributes: Record<string, string> = {
    id,
    role: 'textbox',
    'aria-multiline': 'true',
    'aria-labelledby': labelId,
    ...(describedBy && { 'aria-describedby': describedBy }),
    'aria-invalid': String(invalid),
    class: styles.prose ?? '',
  }
  const editor = useEditor({
    extensions: [StarterKit.configure({ heading: { levels: [2, 3, 4] }, link: { openOnClick: false, defaultProtocol: 'https' } }), MediaFigure],
    content: value,
    // The page is rendered on the server first; the editor exists only in the browser.
    immediatelyRender: false,
    editable: !readOnly,
    editorProps: { attributes },
    onUpdate: ({ editor: current }) => {
      reported.current = current.getHTML()
      onChange(reported.current)
    },
    onBlur: () => onBlur(),
  })

  useEffect(() => {
    editor?.setEditable(!readOnly, false)
  }, [editor, readOnly])

  // The label, description and validity change after the editor is made.
  const attributesKey = JSON.stringify(attributes)
  useEffect(() => {
    editor?.setOptions({ editorProps: { attributes: JSON.parse(attributesKey) as Record<string, string> } })
  }, [editor, attributesKey])

  // A value that did not come from the editor (a reload, the source view) replaces its content.
  useEffect(() => {
    if (!editor || value === reported.current) return
    reported.current = value
    editor.commands.setContent(value, { emitUpdate: false })
  }, [editor, value])

  useImperativeHandle(fieldRef, () => ({
    focus: () => (mode === 'source' ? sourceRef.current?.focus() : editor?.commands.focus()),
  }))

  const switchMode = () => {
    if (mode === 'source' && editor) {
      // Back to rich text: the editor keeps only what it can represent, and that is the body now.
      editor.commands.setContent(value, { emitUpdate: false })
      reported.current = editor.getHTML()
      if (reported.current !== value) onChange(reported.current)
    }
    setMode(mode === 'rich' ? 'source' : 'rich')
  }

  return (
    <div className={styles.field}>
      <div role="group" aria-label="Body formatting" className={styles.toolbar}>
        {mode === 'rich' && editor && <FormattingButtons editor={editor} disabled={readOnly} />}
        <button type="button" className={styles.modeSwitch} onClick={switchMode} aria-pressed={mode === 'source'}>
          Edit HTML
        </button>
      </div>
      <div hidden={mode !== 'source'}>
        <textarea
          id={`${id}-source`}
          ref={sourceRef}
          className={styles.source}
          aria-labelledby={labelId}
          aria-describedby={[describedBy, `${id}-source-hint`].filter(Boolean).join(' ')}
          aria-invalid={invalid}
          readOnly={readOnly}
          value={value}
          spellCheck={false}
          onChange={(event) => onChange(event.target.value)}
          onBlur={onBlur}
        />
        <p id={`${id}-source-hint`} className={styles.sourceHint}>
          HTML is saved as typed; unsafe markup is removed wherever the article is shown. Back in rich text, only what the editor supports is kept.
        </p>
      </div>
      <div className={styles.surface} data-invalid={invalid} hidden={mode !== 'rich'}>
        {editor ? <EditorContent editor={editor} /> : <p className="muted">Loading the editor…</p>}
      </div>
    </div>
  )
}

const marks = [
  { name: 'bold', label: 'Bold', run: (editor: Editor) => editor.chain().focus().toggleBold().run() },
  { name: 'italic', label: 'Italic', run: (editor: Editor) => editor.chain().focus().toggleItalic().run() },
] as const

const blocks = [
  { name: 'heading2', label: 'Heading', run: (editor: Editor) => editor.chain().focus().toggleHeading({ level: 2 }).run() },
  { name: 'heading3', label: 'Subheading', run: (editor: Editor) => editor.chain().focus().toggleHeading({ level: 3 }).run() },
  { name: 'bulletList', label: 'Bulleted list', run: (editor: Editor) => editor.chain().focus().toggleBulletList().run() },
  { name: 'orderedList', label: 'Numbered list', run: (editor: Editor) => editor.chain().focus().toggleOrderedList().run() },
  { name: 'blockquote', label: 'Quote', run: (editor: Editor) => editor.chain().focus().toggleBlockquote().run() },
] as const

function FormattingButtons({ editor, disabled }: { editor: Editor; disabled: boolean }) {
  const active = useEditorState({
    editor,
    selector: ({ editor: current }) => ({
      bold: current.isActive('bold'),
      italic: current.isActive('italic'),
      heading2: current.isActive('heading', { level: 2 }),
      heading3: current.isActive('heading', { level: 3 }),
      bulletList: current.isActive('bulletList'),
      orderedList: current.isActive('orderedList'),
      blockquote: current.isActive('blockquote'),
      link: current.isActive('link'),
      href: (current.getAttributes('link').href as string | undefined) ?? '',
      canUndo: current.can().undo(),
      canRedo: current.can().redo(),
    }),
  })
  const button = ({ name, label, run }: (typeof marks)[number] | (typeof blocks)[number]) => (
    <button key={name} type="button" aria-pressed={active[name]} disabled={disabled} onClick={() => run(editor)}>
      {label}
    </button>
  )
  return (
    <>
      {marks.map(button)}
      <span className={styles.separator} aria-hidden="true" />
      {blocks.map(button)}
      <span className={styles.separator} aria-hidden="true" />
      <LinkControl editor={editor} disabled={disabled} active={active.link} href={active.href} />
      <span className={styles.separator} aria-hidden="true" />
      <InsertImage editor={editor} disabled={disabled} />
      <span className={styles.separator} aria-hidden="true" />
      <button type="button" disabled={disabled || !active.canUndo} onClick={() => editor.chain().focus().undo().run()}>
        Undo
      </button>
      <button type="button" disabled={disabled || !active.canRedo} onClick={() => editor.chain().focus().redo().run()}>
        Redo
      </button>
    </>
  )
}

/**
 * Link and unlink. The address is checked by the body's own allow-list (body-url-rule.ts), so
 * a link the editor makes is never one the save would strip. With no text selected, the address
 * itself becomes the link's text.
 */
function LinkControl({ editor, disabled, active, href }: { editor: Editor; disabled: boolean; active: boolean; href: string }) {
  const [open, setOpen] = useState(false)
  const [address, setAddress] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const inputId = useId()

  useEffect(() => {
    if (open) inputRef.current?.focus()
  }, [open])

  const close = () => {
    setOpen(false)
    setProblem(null)
    editor.commands.focus()
  }
  const apply = (event?: FormEvent) => {
    event?.preventDefault()
    const trimmed = address.trim()
    const refusal = linkAddressProblem(trimmed)
    if (refusal) {
      setProblem(refusal)
      inputRef.current?.focus()
      return
    }
    const chain = editor.chain().focus().extendMarkRange('link')
    if (editor.state.selection.empty && !active) chain.insertContent({ type: 'text', text: trimmed, marks: [{ type: 'link', attrs: { href: trimmed } }] }).run()
    else chain.setLink({ href: trimmed }).run()
    setOpen(false)
    setProblem(null)
  }

  return (
    <>
      <button
        type="button"
        aria-pressed={active}
        aria-expanded={open}
        aria-controls={open ? `${inputId}-panel` : undefined}
        disabled={disabled}
        onClick={() => {
          setAddress(href)
          setProblem(null)
          setOpen(!open)
        }}
      >
        Link
      </button>
      {active && (
        <button type="button" disabled={disabled} onClick={() => editor.chain().focus().extendMarkRange('link').unsetLink().run()}>
          Remove link
        </button>
      )}
      {open && (
        // Not a <form>: the editor sits inside the article's form, and forms do not nest.
        <div id={`${inputId}-panel`} className={styles.linkPanel} role="group" aria-label="Link address">
          <label htmlFor={inputId}>Link address</label>
          <input
            id={inputId}
            ref={inputRef}
            type="text"
            inputMode="url"
            value={address}
            placeholder="https://…"
            aria-invalid={problem !== null}
            aria-describedby={problem ? `${inputId}-problem` : `${inputId}-hint`}
            onChange={(event) => setAddress(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') apply(event)
              if (event.key === 'Escape') {
                event.preventDefault()
                close()
              }
            }}
          />
          {problem ? (
            <p id={`${inputId}-problem`} className="field-error" role="alert">
              {problem}
            </p>
          ) : (
            <p id={`${inputId}-hint`} className={styles.sourceHint}>
              http://, https://, mailto: or tel:, or a path on this site such as /politics.
            </p>
          )}
          <div className={styles.linkActions}>
            <button type="button" onClick={() => apply()}>
              Apply link
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  )
}

/**
 * "Insert image": a library image as `<figure data-media-id>` where the cursor is (the picker
 * asks for alt text first when the image has none).
 */
function InsertImage({ editor, disabled }: { editor: Editor; disabled: boolean }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" disabled={disabled} onClick={() => setOpen(true)}>
        Insert image
      </button>
      <MediaPicker
        open={open}
        title="Insert an image from the library"
        useLabel="Insert image"
        onClose={() => setOpen(false)}
        onChoose={(media) => {
          setOpen(false)
          editor.chain().focus().insertContent({ type: 'mediaFigure', attrs: { mediaId: media.media_id } }).run()
        }}
      />
    </>
  )
}
