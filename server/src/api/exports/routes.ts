import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlanFor } from '../../auth/loadPlanFor.ts';
import { asciiFileName, exportFileName, formatDate, loadPlanExport, type PlanExport } from '../../export/planExport.ts';
import { loadPlanVersion } from '../../domain/history/planVersions.ts';
import { exportQuerySchema, VERSION_KIND_LABELS } from '@csp/shared/api/history';
import { renderPlanPdf } from '../../export/pdf.ts';
import { renderPlanDocx } from '../../export/docx.ts';
import { mediaAnswer, operations } from '../../http/operation.ts';

const EXPORT_FORMATS = {
  pdf: { contentType: 'application/pdf', render: renderPlanPdf },
  docx: { contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', render: renderPlanDocx },
} as const satisfies Record<string, { contentType: string; render: (plan: PlanExport) => Promise<Buffer> }>;

type ExportFormat = keyof typeof EXPORT_FORMATS;

const operation = operations('Plan exports', {
  pdf: {
    summary: 'A plan as PDF',
    query: exportQuerySchema,
    responses: { 200: mediaAnswer(EXPORT_FORMATS.pdf.contentType, 'The plan (the steps the caller may read).') },
  },
  docx: {
    summary: 'A plan as a Word document',
    query: exportQuerySchema,
    responses: { 200: mediaAnswer(EXPORT_FORMATS.docx.contentType, 'The plan (the steps the caller may read).') },
  },
});

/**
 * GET /api/forms/:id/export/pdf and /docx: whoever may read the plan downloads it (a share limited
 * to some steps gets those steps), as it is now or, with `?version=`, as one of its versions held it. Exports are costly, so each user has 10 a minute.
 */
export function exportRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms/:id/export' });

  const exportAs = (format: ExportFormat) => async (ctx: Context) => {
    const actor = authOf(ctx).actor;
    const context = await loadPlanFor(services, actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
    const query = parse(exportQuerySchema, ctx.query);
    await services.rateLimits.consume('export', actor.id);
    const version = query.version ? await loadPlanVersion(services.storage.db, context.plan.id, query.version) : null;
    const plan = await loadPlanExport(
      services,
      context,
      version
        ? {
            version: {
              label: `Version: ${VERSION_KIND_LABELS[version.kind]} on ${formatDate(version.createdAt)}`,
              steps: version.steps,
              savedAt: version.createdAt,
            },
          }
        : {},
    );
    const { contentType, render } = EXPORT_FORMATS[format];
    const body = await render(plan);
    const fileName = exportFileName(plan, format);
    ctx.attachment(fileName, { fallback: asciiFileName(fileName) });
    ctx.type = contentType;
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = body;
  };

  router.get('/pdf', operation.pdf, exportAs('pdf'));
  router.get('/docx', operation.docx, exportAs('docx'));
  return router;
}
