import { defineParams } from '@sveltejs/kit/params';
import { id } from './id.ts';
import { step } from './step.ts';

// Route parameter matchers: /plans/[id=id]/step/[n=step]
export const params = defineParams({ id, step });
