'use client'

import { useEffect, useRef } from 'react'
import { eventKindGroups, eventKinds, eventKindsNeverSent, type EventKind } from '@/lib/events/event-kinds'
import styles from '../settings.module.css'
import pickerStyles from './webhooks.module.css'

function GroupToggle({ group, kinds, selected, onToggle }: { group: string; kinds: readonly string[]; selected: Set<string>; onToggle: (all: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null)
  const count = kinds.filter((kind) => selected.has(kind)).length
  // "Some of the group" is neither checked nor unchecked; the browser shows it as a dash.
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = count > 0 && count < kinds.length
  }, [count, kinds.length])
  return (
    <label className={styles.checkboxRow}>
      <input ref={ref} type="checkbox" checked={count === kinds.length} onChange={(event) => onToggle(event.target.checked)} />
      <strong>All {group} events</strong>
    </label>
  )
}

/** Event kinds chosen by group, as the spec's table groups them (section 6). */
export function EventKindPicker(props: { value: EventKind[]; onChange: (value: EventKind[]) => void; invalid: boolean; describedBy?: string; firstRef?: (element: HTMLInputElement | null) => void }) {
  const selected = new Set<string>(props.value)
  const set = (kinds: readonly EventKind[], on: boolean) => {
    const next = new Set<string>(selected)
    for (const kind of kinds) {
      if (on) next.add(kind)
      else next.delete(kind)
    }
    props.onChange(eventKinds.filter((kind) => next.has(kind)))
  }
  let first = true
  return (
    <fieldset className={styles.fieldset} aria-invalid={props.invalid} aria-describedby={props.describedBy}>
      <legend>Events</legend>
      <p className={styles.hint}>Deliveries are sent only for the events chosen here.</p>
      <div className={pickerStyles.groups}>
        {Object.entries(eventKindGroups).map(([group, kinds]) => (
          <fieldset key={group} className={pickerStyles.group}>
            <legend>{group}</legend>
            {kinds.every((kind) => eventKindsNeverSent.has(kind)) && <p className={styles.hint}>Not sent yet: the service has no {group.toLowerCase()} features. Chosen now, they are delivered once it does.</p>}
            <GroupToggle group={group} kinds={kinds} selected={selected} onToggle={(all) => set(kinds, all)} />
            {kinds.map((kind) => {
              const ref = first ? props.firstRef : undefined
              first = false
              return (
                <label key={kind} className={`${styles.checkboxRow} ${pickerStyles.kind}`}>
                  <input ref={ref} type="checkbox" name="events" value={kind} checked={selected.has(kind)} onChange={(event) => set([kind], event.target.checked)} />
                  <span className={styles.mono}>{kind}</span>
                </label>
              )
            })}
          </fieldset>
        ))}
      </div>
    </fieldset>
  )
}
