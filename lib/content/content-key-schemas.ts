import { z } from 'zod'

// A content key's name, as the portal's form and `npm run content-keys -- create` take it.
export const contentKeyNameSchema = z.string().trim().min(1, 'name must not be empty.').max(100, 'name must be at most 100 characters.')

export const createContentKeySchema = z.object({ name: contentKeyNameSchema })
