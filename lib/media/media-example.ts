import type { MediaRecord } from './media-schemas.ts'

/**
 * The one example of a media record: the OpenAPI document's examples and the sample that a
 * webhook test sends for media.* are the same record, so the two can never disagree.
 */
export const exampleMediaRecord: MediaRecord = {
  media_id: 'med_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  content_type: 'image/jpeg',
  filename: 'harbour-fire.jpg',
  bytes: 4_812_331,
  width: 4000,
  height: 2667,
  sha256: '9f2c1e0b7d4a8e6f3c5b2a1d0e9f8c7b6a5d4e3f2c1b0a9e8d7c6b5a4f3e2d1c',
  alt_text: 'Firefighters spray water on a burning warehouse at the harbour at dusk.',
  caption: 'The fire at Pier 4 on Saturday evening.',
  credit: 'Jane Doe / Reuters',
  copyright: 'Reuters',
  source: 'Reuters',
  rights: { usage_terms: 'Editorial use only; no archive.', embargo_until: null, expires_at: '2027-05-28T00:00:00.000Z' },
  focal_point: { x: 0.62, y: 0.4 },
  taken_at: '2026-11-28T17:41:09.000Z',
  used_by: ['art_0mhx2k1s9q3v8w4t6y1z2a3b4d'],
  urls: {
    original: '/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/original',
    renditions: [
      { width: 320, height: 213, crop: null, url: '/content/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/9f2c1e0b7d4a8e6f-f620_400-w320/Zk3v9QmX2c1bPq7RtY8wLa' },
      { width: 640, height: 427, crop: null, url: '/content/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/9f2c1e0b7d4a8e6f-f620_400-w640/b7X2mQ9cL1pR4tY8wKaZ3v' },
    ],
  },
  created_at: '2026-11-28T18:02:11.000Z',
  created_by: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e',
  updated_at: '2026-11-28T18:05:40.000Z',
  version: 2,
}
