'use client'

import { useId, useRef, useState, type DragEvent } from 'react'
import type { MediaRecord } from '@/lib/media/media-schemas'
import { portalRequestHeader } from '@/lib/security/same-origin'
import styles from './media.module.css'

type Upload = { key: string; name: string; bytes: number; sent: number; state: 'waiting' | 'sending' | 'processing' | 'done' | 'duplicate' | 'failed' | 'cancelled'; message?: string; media?: MediaRecord }

const accepted = 'image/jpeg,image/png,image/webp,image/avif,image/gif'

// What a refusal's status means, before the server's own sentence (413/415/422 of lib/media).
const refusalWords: Record<number, string> = {
  401: 'Your session has ended: sign in again.',
  403: 'You may not upload images.',
  413: 'Too large.',
  415: 'Not an image type the library keeps.',
  422: 'The image could not be read.',
  // As many of this member's uploads are under way or waiting as one may have (LARGE_BODY_PER_CLIENT).
  429: 'Not uploaded now: too many of your uploads are under way; try again when they are done.',
  503: 'Not uploaded now: try again in a moment.',
}

/**
 * Uploads this page has under way at once; the rest wait their turn on the page. The server holds
 * one member to LARGE_BODY_PER_CLIENT (8) uploads under way or waiting, and refuses the rest 429.
 * Over HTTP/1.1 the browser itself sent six at a time, but over HTTP/2 (docs/deploy.md's HAProxy)
 * it sends every file of a drop together, and a batch of twelve had four refused (break70). Four
 * keeps two slots of the instance busy with two more ready, and leaves room for a second tab's.
 */
const mostAtOnce = 4

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB`

/**
 * Upload by drag and drop or the file input: one request per file (XMLHttpRequest, the one
 * browser API that reports upload progress), each with its own progress bar, the server's
 * refusal shown in its own words (413 too large, 415 not an image, 422 unreadable).
 */
export function MediaUploader({ maxBytes, onUploaded }: { maxBytes: number; onUploaded: (media: MediaRecord) => void }) {
  const [uploads, setUploads] = useState<Upload[]>([])
  const [over, setOver] = useState(false)
  const inputRef = useRef<HTMLInputElement>(null)
  // The requests still sending, so one started by mistake (a 40 MB file on a phone) can be stopped.
  const requests = useRef(new Map<string, XMLHttpRequest>())
  // Uploads waiting their turn (mostAtOnce), first chosen first, and how many are under way.
  const waiting = useRef<{ key: string; start: () => void }[]>([])
  const underWay = useRef(0)
  const chosen = useRef(0)
  const startNext = () => {
    while (underWay.current < mostAtOnce && waiting.current.length > 0) {
      underWay.current++
      waiting.current.shift()!.start()
    }
  }
  const cancel = (key: string) => {
    const place = waiting.current.findIndex((queued) => queued.key === key)
    if (place < 0) return requests.current.get(key)?.abort()
    waiting.current.splice(place, 1)
    change(key, { state: 'cancelled' })
  }
  const inputId = useId()
  const change = (key: string, patch: Partial<Upload>) => setUploads((all) => all.map((upload) => (upload.key === key ? { ...upload, ...patch } : upload)))

  const start = (key: string, file: File) => {
    change(key, { state: 'sending' })
    const body = new FormData()
    body.append('file', file, file.name)
    const request = new XMLHttpRequest()
    request.open('POST', '/api/media')
    request.setRequestHeader(portalRequestHeader, '1')
    request.responseType = 'json'
    // Sent whole: from then on the server may have kept it, and a connection that drops before
    // its answer arrives leaves the page not knowing whether it did (the server saw its answer go out).
    let sentWhole = false
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.loaded >= event.total) sentWhole = true
      change(key, { sent: event.loaded, bytes: event.lengthComputable ? event.total : file.size })
    }
    request.upload.onload = () => {
      sentWhole = true
      change(key, { state: 'processing' })
    }
    request.onabort = () => change(key, { state: 'cancelled' })
    request.onloadend = () => {
      requests.current.delete(key)
      underWay.current--
      startNext()
    }
    request.onload = () => {
      const answer = request.response as { created?: boolean; media?: MediaRecord; detail?: string } | null
      if ((request.status === 200 || request.status === 201) && answer?.media) {
        change(key, { state: answer.created ? 'done' : 'duplicate', media: answer.media, sent: file.size })
        onUploaded(answer.media)
      } else {
        const words = refusalWords[request.status] ?? 'Not uploaded.'
        change(key, { state: 'failed', message: `${words} ${answer?.detail ?? ''}`.trim() })
      }
    }
    request.onerror = () =>
      change(key, {
        state: 'failed',
        message: sentWhole
          ? 'The connection dropped after the file was sent, before the answer came: it may have been stored. Look for it in the library; sending it again is safe (the same photo is never stored twice).'
          : 'The upload was cut off (the connection dropped). Nothing was stored; try again.',
      })
    requests.current.set(key, request)
    request.send(body)
  }
  const send = (file: File) => {
    // Numbered in the order chosen (unique within the page, which is all a key needs to be).
    const key = `upload-${(chosen.current += 1)}`
    const upload: Upload = { key, name: file.name, bytes: file.size, sent: 0, state: 'waiting' }
    // Known to be refused: said at once, without sending 50 MB to hear it.
    if (file.size > maxBytes) {
      setUploads((all) => [{ ...upload, state: 'failed', message: `Too large. The file is ${megabytes(file.size)}; the library takes files up to ${megabytes(maxBytes)}. Nothing was stored.` }, ...all])
      return
    }
    setUploads((all) => [upload, ...all])
    waiting.current.push({ key, start: () => start(key, file) })
    startNext()
  }

  const sendAll = (files: FileList | null) => Array.from(files ?? []).forEach(send)

  const drop = (event: DragEvent) => {
    event.preventDefault()
    setOver(false)
    sendAll(event.dataTransfer.files)
  }

  return (
    <section aria-label="Upload images">
      <div
        className={styles.dropZone}
        data-over={over}
        data-testid="media-drop-zone"
        onDragOver={(event) => {
          event.preventDefault()
          setOver(true)
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>Drop photos here, or</p>
        <label htmlFor={inputId}>Choose images to upload</label>{' '}
        <input
          id={inputId}
          ref={inputRef}
          type="file"
          accept={accepted}
          multiple
          onChange={(event) => {
            sendAll(event.target.files)
            event.target.value = ''
          }}
        />
        <p className={styles.hint}>JPEG, PNG, WebP, AVIF or GIF, up to {megabytes(maxBytes)} each. GPS position and camera details are never published.</p>
      </div>
      {uploads.length > 0 && (
        <ul className={styles.uploads} aria-label="Uploads">
          {uploads.map((upload) => (
            <li key={upload.key} className={styles.upload} data-testid="media-upload" data-state={upload.state}>
              <span className={styles.uploadName}>{upload.name}</span>{' '}
              {upload.state !== 'failed' && upload.state !== 'cancelled' && (
                <progress max={upload.bytes || 1} value={upload.state === 'sending' || upload.state === 'waiting' ? upload.sent : upload.bytes || 1} aria-label={`Upload of ${upload.name}`}>
                  {Math.round((upload.sent / (upload.bytes || 1)) * 100)}%
                </progress>
              )}
              {(upload.state === 'sending' || upload.state === 'waiting') && (
                <button type="button" className="secondary" aria-label={`Cancel upload of ${upload.name}`} onClick={() => cancel(upload.key)}>
                  Cancel
                </button>
              )}
              <p role={upload.state === 'failed' ? 'alert' : 'status'} className={upload.state === 'failed' ? 'field-error' : styles.hint}>
                {upload.state === 'waiting' && `Waiting: sent when the uploads before it are done (${mostAtOnce} at a time).`}
                {upload.state === 'sending' && `Uploading… ${Math.round((upload.sent / (upload.bytes || 1)) * 100)}% of ${megabytes(upload.bytes)}`}
                {upload.state === 'processing' && 'Sent; checking the image…'}
                {upload.state === 'done' && 'Uploaded. Add its alt text below.'}
                {upload.state === 'duplicate' && 'Already in the library: the existing image is shown.'}
                {upload.state === 'failed' && upload.message}
                {upload.state === 'cancelled' && 'Upload cancelled. Nothing was stored.'}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
