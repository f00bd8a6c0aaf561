import { loadConfig } from '../config.ts';
import { openStorage } from '../storage/database.ts';
import { ensureBundledBank } from '../domain/questionBank/ensureBundledBank.ts';
import { seedDemoDistrict } from './demoDistrict.ts';

const config = loadConfig();
const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  await ensureBundledBank(storage.db);
  await seedDemoDistrict(storage.db);
  console.log(`Demo district loaded into ${storage.kind === 'postgres' ? 'PostgreSQL' : config.dataDir}`);
} finally {
  await storage.close();
}
