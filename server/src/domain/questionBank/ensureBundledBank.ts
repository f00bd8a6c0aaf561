import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Database } from '../../storage/database.ts';
import { questionBankVersions } from '../../storage/schema.ts';

/** A database with no bank versions gets the bundled bank as version 1, published. */
export async function ensureBundledBank(db: Database): Promise<void> {
  await db
    .insert(questionBankVersions)
    .values({ version: BUNDLED_BANK.version, status: 'published', steps: BUNDLED_BANK.steps, publishedAt: new Date() })
    .onConflictDoNothing();
}
