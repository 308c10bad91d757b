-- Every /v1 request adds a row here, at the API's own rate, on the machine that serves it.
-- The foreign key made each row look its tenant up (an RI check per row: a quarter of the
-- insert's PostgreSQL CPU), and the created_at index was kept only for pruning, which now walks
-- each newsroom's (tenant_id, created_at) index instead (lib/request-log/prune-request-log.ts).
-- Newsrooms are never deleted; rows only ever come from an authenticated key's own newsroom.
ALTER TABLE "api_requests" DROP CONSTRAINT "api_requests_tenant_id_fkey";
DROP INDEX "api_requests_created_at_idx";
