import { and, eq, inArray } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { DEFAULT_STEP_KEYS, type QuestionBank } from '@csp/shared';
import type { Database } from '../../storage/database.ts';
import { questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';

export interface ResolvedBank extends QuestionBank {
  source: 'published' | 'bundled';
}

/**
 * Reads question-bank versions. Published and archived versions never change, so each is read
 * from the database once per process; drafts are never served from here.
 */
export class BankCatalog {
  private readonly versions = new Map<number, Promise<QuestionBank | null>>();
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** A published or archived version, or null. */
  version(version: number): Promise<QuestionBank | null> {
    let cached = this.versions.get(version);
    if (!cached) {
      cached = this.db
        .select({ version: questionBankVersions.version, steps: questionBankVersions.steps })
        .from(questionBankVersions)
        .where(and(eq(questionBankVersions.version, version), inArray(questionBankVersions.status, ['published', 'archived'])))
        .then(([row]) => (row ? { version: row.version, steps: row.steps } : null));
      cached.then((bank) => bank ?? this.versions.delete(version)).catch(() => this.versions.delete(version));
      this.versions.set(version, cached);
    }
    return cached;
  }

  /** Forgets a version (a draft that was just published reads fresh). */
  forget(version: number): void {
    this.versions.delete(version);
  }

  async publishedVersion(): Promise<number | null> {
    const [row] = await this.db
      .select({ version: questionBankVersions.version })
      .from(questionBankVersions)
      .where(eq(questionBankVersions.status, 'published'))
      .limit(1);
    return row?.version ?? null;
  }

  /** The version a school year pins, else the published one. */
  async versionForYear(schoolYear: string | undefined): Promise<number | null> {
    if (schoolYear) {
      const [settings] = await this.db
        .select({ version: schoolYearSettings.questionBankVersion })
        .from(schoolYearSettings)
        .where(eq(schoolYearSettings.schoolYear, schoolYear))
        .limit(1);
      if (settings?.version) return settings.version;
    }
    return this.publishedVersion();
  }

  /** The bank for a plan or a year: a stored version when there is one, else the bundled bank. */
  async resolve(version: number | null | undefined): Promise<ResolvedBank> {
    const stored = version ? await this.version(version) : null;
    return stored ? { ...stored, source: 'published' } : { ...BUNDLED_BANK, source: 'bundled' };
  }
}

/** Step keys in bank order; the default order when a bank has none. */
export function stepKeysOf(bank: QuestionBank | null): readonly string[] {
  return bank && bank.steps.length > 0 ? bank.steps.map((step) => step.key) : DEFAULT_STEP_KEYS;
}
