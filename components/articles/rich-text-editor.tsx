'use client'

import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react'
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
    extensions: [StarterKit.configure({ heading: { levels: [2, 3, 4] }, link: { openOnClick: false, defaultProtocol: 'https' } })],
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
      <button type="button" disabled={disabled || !active.canUndo} onClick={() => editor.chain().focus().undo().run()}>
        Undo
      </button>
      <button type="button" disabled={disabled || !active.canRedo} onClick={() => editor.chain().focus().redo().run()}>
        Redo
      </button>
    </>
  )
}
