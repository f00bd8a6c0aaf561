/**
 * `pnpm --filter @csp/tests run fixture:district`: grows a database to district size (the district
 * fixture: 1,600 schools with a principal each, last year's plans and this year's rolled-over
 * copies, ~2,000 users, 100,000 audit records) in seconds, by SQL. The database is DATABASE_URL's
 * PostgreSQL, or the embedded one in DATA_DIR (the server's own settings); it is migrated first.
 * Grow it once: the fixture's ids are fixed, so a second run is refused by their unique keys.
 */
import { openStorage } from '../../server/src/storage/database.ts';
import { growDistrict } from '../../server/src/testing/districtFixture.ts';

const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = process.env.DATA_DIR;
if (!databaseUrl && !dataDir) {
  console.error('Set DATABASE_URL (PostgreSQL) or DATA_DIR (the embedded database’s folder).');
  process.exit(2);
}
const storage = await openStorage({ databaseUrl, dataDir: dataDir ?? 'memory://' });
try {
  const started = performance.now();
  const district = await growDistrict(storage.db);
  console.log(`Grew ${district.schools} schools (${district.lastYear} and ${district.thisYear}) in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
} finally {
  await storage.close();
}
