/**
 * JSON text for values a field may be sent: valid JSON all, most of them not storable as sent.
 * The /v1 fuzz test writes each into a request body as it is (`1e400`, `-0`); the portal's
 * procedures' fuzz test sends what JSON.parse makes of it.
 */
export const hostileJsonValues: Record<string, string> = {
  'lone high surrogate': '"\\ud800"',
  'lone low surrogate': '"a\\udfffb"',
  'reversed pair': '"\\ude00\\ud83d"',
  NUL: '"a\\u0000b"',
  'huge string': JSON.stringify('x'.repeat(200_000)),
  'huge unicode string': JSON.stringify('é😀'.repeat(40_000)),
  'number 1e400': '1e400',
  'number -1e400': '-1e400',
  'minus zero': '-0',
  'huge integer': '123456789012345678901234567890',
  'tiny number': '5e-324',
  'max safe + 1': '9007199254740993',
  'negative': '-1',
  fraction: '1.5',
  'empty string': '""',
  'spaces': '"   "',
  true: 'true',
  null: 'null',
  'empty array': '[]',
  'empty object': '{}',
  'array of nasties': '["\\u0000", 1e400, "\\ud800", {}]',
  'date far away': '"+275760-09-13T00:00:00.001Z"',
  'bidi and zero-width': '"\\u202e\\u200b\\ufeff"',
}
