#!/usr/bin/env bash
# npm test: lint, types, the typed client, unit and integration tests, then the production build
# and its browser journeys, then the `npm run dev` journey. Every step runs and reports, so one
# red step does not hide the others; the exit code is non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
. scripts/steps.sh

step "prisma generate" npm run db:generate --silent
step "lint" npm run lint
step "typecheck" npm run typecheck
step "typed client matches the OpenAPI documents" npm run client:check
step "vitest (unit, integration, docs' code blocks, packed client)" npm run test:vitest
step "build" npm run build
step "playwright (production build)" npx playwright test
step "playwright (npm run dev)" npx playwright test -c playwright.dev.config.ts
steps_summary "npm test"
