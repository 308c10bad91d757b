-- The request log of /v1, per API key: what was asked (method, route template, query keys —
-- never values or bodies) and how it was answered. Written in batches off the response path;
-- pruned after REQUEST_LOG_RETENTION_DAYS by the prune-request-log function.
CREATE TABLE "api_requests" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "token_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "query_keys" TEXT[],
    "status" INTEGER NOT NULL,
    "problem_code" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "client_address" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_requests_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "api_requests_tenant_id_token_id_created_at_idx" ON "api_requests"("tenant_id", "token_id", "created_at" DESC);
CREATE INDEX "api_requests_tenant_id_created_at_idx" ON "api_requests"("tenant_id", "created_at" DESC);
CREATE INDEX "api_requests_created_at_idx" ON "api_requests"("created_at");

ALTER TABLE "api_requests" ADD CONSTRAINT "api_requests_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
