'use client'

import type { MouseEvent } from 'react'
import styles from './media.module.css'

const round = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000

/**
 * The point every crop keeps in view: a click on the image sets it (x, y as fractions of the
 * width and height from the top left); the two number fields set it by keyboard.
 */
export function FocalPointPicker({ src, alt, value, onChange, disabled }: { src: string; alt: string; value: { x: number; y: number }; onChange: (point: { x: number; y: number }) => void; disabled: boolean }) {
  const pick = (event: MouseEvent<HTMLDivElement>) => {
    if (disabled) return
    const box = event.currentTarget.getBoundingClientRect()
    // Not drawn yet (the preview still loading): there is no point to take.
    if (box.width === 0 || box.height === 0) return
    onChange({ x: round((event.clientX - box.left) / box.width), y: round((event.clientY - box.top) / box.height) })
  }
  const percent = (fraction: number) => Math.round(fraction * 100)
  return (
    <div>
      <div className={styles.focal} onClick={pick} data-testid="focal-point-image">
        {/* eslint-disable-next-line @next/next/no-img-element -- the portal's preview route already serves a sized rendition */}
        <img src={src} alt={alt} />
        <span className={styles.focalMark} style={{ left: `${value.x * 100}%`, top: `${value.y * 100}%` }} aria-hidden="true" data-testid="focal-point-mark" />
      </div>
      <p className={styles.hint}>Click the part of the picture crops must keep (a face, the subject). Now at {percent(value.x)}% across, {percent(value.y)}% down.</p>
      <div className={styles.toolbar}>
        <div>
          <label htmlFor="focal-x">Focal point across (%)</label>
          <input id="focal-x" type="number" min={0} max={100} step={1} disabled={disabled} value={percent(value.x)} onChange={(event) => onChange({ ...value, x: round(Number(event.target.value) / 100) })} />
        </div>
        <div>
          <label htmlFor="focal-y">Focal point down (%)</label>
          <input id="focal-y" type="number" min={0} max={100} step={1} disabled={disabled} value={percent(value.y)} onChange={(event) => onChange({ ...value, y: round(Number(event.target.value) / 100) })} />
        </div>
      </div>
    </div>
  )
}
