-- The request log keeps one row per API key per write of the log (about a second's requests,
-- up to 500) instead of one row per request. Every /v1 request used to add a heap row and three
-- index entries, which cost PostgreSQL 8-10 µs of CPU per request, more than the 5% of a cached
-- read's CPU the log may take; as one JSON value per batch the same requests cost 1.5 µs each
-- (100,000 requests in batches of 500, the backend's CPU, medians of three interleaved runs).
-- lib/request-log/list-api-requests.ts reads the entries out, newest batches first.
CREATE TABLE "api_request_batches" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "token_id" TEXT NOT NULL,
    "first_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,
    "entry_count" INTEGER NOT NULL,
    "class_counts" INTEGER[],
    "entries" JSON NOT NULL,

    CONSTRAINT "api_request_batches_pkey" PRIMARY KEY ("id")
);

-- Kept out of line and uncompressed: compressing each batch cost PostgreSQL 0.6 µs per request
-- more, and ids, the most of an entry, hardly compress.
ALTER TABLE "api_request_batches" ALTER COLUMN "entries" SET STORAGE EXTERNAL;

-- Ascending, so each batch lands at the right edge of its key's and newsroom's range; pages are
-- read newest first by scanning backwards. No foreign keys, as before (request_log_lean_writes).
CREATE INDEX "api_request_batches_token_id_last_at_idx" ON "api_request_batches"("token_id", "last_at");
CREATE INDEX "api_request_batches_tenant_id_last_at_idx" ON "api_request_batches"("tenant_id", "last_at");

-- What the log holds now, as batches of a key's requests in one minute, at most 500 each (the
-- most the service writes in one), entries in the order of lib/request-log/request-log-entry.ts.
-- Entries are kept under the time their request arrived (its id's), which the log used to keep
-- as the time it was answered: the answer's time less its duration.
INSERT INTO "api_request_batches" ("id", "tenant_id", "token_id", "first_at", "last_at", "entry_count", "class_counts", "entries")
SELECT 'rqb_' || replace(gen_random_uuid()::text, '-', ''), tenant_id, token_id, min(arrived_at), max(arrived_at), count(*),
       ARRAY[count(*) FILTER (WHERE status / 100 = 1), count(*) FILTER (WHERE status / 100 = 2), count(*) FILTER (WHERE status / 100 = 3),
             count(*) FILTER (WHERE status / 100 = 4), count(*) FILTER (WHERE status / 100 = 5)]::int[],
       json_agg(json_build_array(id, method, route, to_json(query_keys), status, problem_code, duration_ms, client_address,
                                 (extract(epoch FROM arrived_at) * 1000)::bigint) ORDER BY arrived_at, id)
FROM (
  SELECT r.*, arrived_at, date_trunc('minute', arrived_at) AS minute,
         (row_number() OVER (PARTITION BY tenant_id, token_id, date_trunc('minute', arrived_at) ORDER BY arrived_at, id) - 1) / 500 AS part
  FROM "api_requests" r, LATERAL (SELECT r.created_at - r.duration_ms * interval '1 millisecond' AS arrived_at) a
) entries
GROUP BY tenant_id, token_id, minute, part;

DROP TABLE "api_requests";
