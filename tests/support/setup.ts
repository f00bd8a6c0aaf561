import { afterEach, expect } from 'vitest';
import { takePolicyProblems } from './policyProblems.ts';

// Every test that drove a browser ends with no page having been refused anything by the app's own
// policies: the app runs under its Content-Security-Policy on every page the tests visit.
afterEach(() => {
  expect(takePolicyProblems(), 'the browser refused something under the app’s security policies').toEqual([]);
});
