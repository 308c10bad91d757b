-- Data migrations that SQL cannot express (they run application code, e.g. the body
-- sanitiser) run after `prisma migrate deploy` (scripts/data-migrations.ts); a row here
-- records that one finished, so later starts skip it.
CREATE TABLE "data_migrations" (
    "name" TEXT NOT NULL,
    "completed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "changed" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "data_migrations_pkey" PRIMARY KEY ("name")
);
