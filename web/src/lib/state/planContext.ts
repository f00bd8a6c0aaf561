import { getContext, setContext } from 'svelte';
import type { PlanState } from './plan.svelte.ts';

const KEY = Symbol('plan');

/** The open plan, shared by the plan layout with its pages (a getter: the layout may swap it). */
export const providePlan = (plan: () => PlanState) => setContext(KEY, plan);
export const usePlan = (): (() => PlanState) => getContext(KEY);
