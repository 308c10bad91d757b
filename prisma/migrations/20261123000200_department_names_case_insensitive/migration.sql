-- "Sport" and "sport" are one department to every reader, so the database refuses the second
-- one too, even when two admins add them at the same moment (the app's own check cannot see a
-- concurrent insert). Prisma's schema cannot express an index on lower(name), hence raw SQL.

-- Names that already clash (only a race could have made them) keep the oldest as is; the
-- others get a number, so the index can be built and nothing is lost.
WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY tenant_id, lower(name) ORDER BY created_at, id) AS n
  FROM departments
)
UPDATE departments d SET name = d.name || ' (' || r.n || ')'
FROM ranked r
WHERE d.id = r.id AND r.n > 1;

CREATE UNIQUE INDEX "departments_tenant_id_lower_name_key" ON "departments" ("tenant_id", lower("name"));
