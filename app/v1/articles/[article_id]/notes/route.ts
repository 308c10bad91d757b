import { createNoteOperation, listNotesOperation } from '@/lib/api/operations/note-operations'
import { apiRoute, jsonResponse, withApi } from '@/lib/api/with-api'
import { addArticleNote, listArticleNotes } from '@/lib/articles/article-notes'
import { pageRecord } from '@/lib/pagination'

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute({
  GET: withApi(listNotesOperation, async ({ actor, params, query }) => jsonResponse(pageRecord(await listArticleNotes(actor, params.article_id, query), (note) => note))),
  POST: withApi(createNoteOperation, async ({ actor, params, body }) => jsonResponse(await addArticleNote(actor, params.article_id, body.body), { status: 201 })),
})
