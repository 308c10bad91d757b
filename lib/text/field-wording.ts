/**
 * The portal's words for a refused field. The API's messages name the field as the JSON does
 * ("headline must not be empty.") because an integrator reads them beside the JSON; a person
 * filling a form reads "Give the article a headline." One table, used for both what the form's
 * own validation finds (components/form-wording.ts wraps the resolver) and what the server
 * refuses (describePortalError), so a field never speaks two languages.
 */

/** What each API field is called on the portal's forms. */
const labels: Record<string, string> = {
  headline: 'headline',
  lede: 'lede',
  body: 'text',
  slug: 'web address (slug)',
  tags: 'tags',
  department_id: 'department',
  featured_media_id: 'featured image',
  alt_text: 'alt text',
  caption: 'caption',
  credit: 'credit',
  copyright: 'copyright',
  note: 'note',
  name: 'name',
  url: 'endpoint URL',
  secret: 'signing secret',
  events: 'event kinds',
  expires_in: 'expiry',
  q: 'search',
}

/** A field left empty: what to do, in the form's words. */
const whenEmpty: Record<string, string> = {
  headline: 'Give the article a headline.',
  note: 'Write the note first: it cannot be empty.',
  name: 'Give it a name.',
  url: 'Enter the endpoint URL that receives the deliveries.',
  q: 'Type something to search for.',
}

const rules: { pattern: RegExp; say: (field: string, label: string, match: RegExpMatchArray) => string }[] = [
  { pattern: /^\S+ must not be empty\b/, say: (field, label) => whenEmpty[field] ?? `Fill in the ${label}.` },
  { pattern: /^\S+ must be at most ([\d,]+) characters/, say: (_field, label, match) => `Shorten the ${label} to ${match[1]} characters or fewer.` },
  { pattern: /^\S+ must list at least one/, say: (_field, label) => `Choose at least one of the ${label}.` },
  { pattern: /^\S+ must list at most ([\d,]+)/, say: (_field, label, match) => `Choose at most ${match[1]} ${label}.` },
  {
    pattern: /^slug must be lower-case letters and digits joined by single hyphens/,
    say: () => 'Use lower-case letters and digits joined by single hyphens for the web address, e.g. council-approves-riverside-plan.',
  },
]

/** The field's name as the API spells it: `tags.3` is one of the tags. */
function apiField(field: string): string {
  return field.split('.')[0] ?? field
}

/**
 * The portal's sentence for a field error. A message that does not read as the API's
 * ("<field> must …") is the form's own already, and is kept.
 */
export function portalFieldMessage(field: string, message: string): string {
  const name = apiField(field)
  if (!message.startsWith(`${name} `)) return message
  const label = labels[name] ?? name.replaceAll('_', ' ')
  for (const rule of rules) {
    const match = message.match(rule.pattern)
    if (match) return rule.say(name, label, match)
  }
  // Otherwise the API's own sentence, with the field named as the form names it.
  const rest = message.slice(name.length)
  return `The ${label}${rest}`
}
